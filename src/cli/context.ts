/** What every operator command shares: config, a migrated database, output, argument parsers. */
import { InvalidArgumentError } from 'commander';
import { type Config, loadConfig } from '../config.js';
import { AppError } from '../errors.js';
import { openStore, type Store } from '../store/index.js';
import { announceDatabase } from './database.js';

/** `create`: only `migrate` may create a missing SQLite file (see database.ts) */
export async function withStore<T>(
  fn: (store: Store, config: Config, applied: string[]) => Promise<T>,
  opts: { create?: boolean } = {},
): Promise<T> {
  const config = loadConfig();
  announceDatabase(config.database, { create: opts.create === true });
  const store = openStore(config.database, { pgPoolSize: 2, pgStatementTimeoutMs: config.pgStatementTimeoutMs });
  try {
    const applied = await store.migrate();
    return await fn(store, config, applied);
  } finally {
    await store.close();
  }
}

/** --json prints exactly one JSON document; otherwise readable lines */
export function output(json: boolean | undefined, value: unknown, text: string): void {
  process.stdout.write(json ? `${JSON.stringify(value)}\n` : `${text}\n`);
}

export class UsageError extends Error {}

/** an unknown company is a failure (exit 1, README), as for `key create`: a list for it is not an empty list that hides the typo */
export async function requireCompany(store: Store, companyId: string): Promise<void> {
  if (!(await store.companies.exists(companyId))) throw new AppError('not_found', `company ${companyId} not found`);
}

export function positiveInt(name: string) {
  return (raw: string): number => {
    if (!/^\d+$/.test(raw) || Number(raw) < 1) throw new UsageError(`${name} must be a whole number of at least 1, got "${raw}"`);
    return Number(raw);
  };
}

/** wraps a parser so that its error becomes commander's usage error (exit 2, with help) */
export const arg =
  <T>(parse: (raw: string) => T) =>
  (raw: string): T => {
    try {
      return parse(raw);
    } catch (err) {
      const usage = new InvalidArgumentError((err as Error).message);
      // commander exits with the error's exitCode, which is 1 unless set.
      usage.exitCode = 2;
      throw usage;
    }
  };
