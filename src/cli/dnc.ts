/** `leadline dnc add|remove|list|import`: a company's do-not-call list, on the database directly (src/compliance/dnc.ts). */
import { existsSync, statSync } from 'node:fs';
import type { Command } from 'commander';
import { addToDnc, removeFromDnc, shownEntry } from '../compliance/dnc.js';
import type { DncImportSummary } from '../compliance/dnc-import.js';
import { AppError } from '../errors.js';
import type { Store } from '../store/index.js';
import { output, requireCompany, UsageError, withStore } from './context.js';

/** the company, which must exist, as the principal the service expects (company-wide) */
async function companyAccess(store: Store, companyId: string) {
  await requireCompany(store, companyId);
  return { companyId, campaignId: null };
}

/** a bad number is a usage error (exit 2), as on the command line it is */
async function usage<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof AppError && err.code === 'validation') throw new UsageError(err.message);
    throw err;
  }
}

function importText(file: string, s: DncImportSummary): string {
  const lines = [
    `${file}: ${s.rows} rows in ${s.seconds.toFixed(1)} s`,
    `  added           ${s.added}`,
    `  already listed  ${s.alreadyListed}`,
    `  rejected        ${s.rejected}`,
    ...s.rejections.map((r) => `    line ${r.line}: ${r.reason}`),
  ];
  if (s.rejected > s.rejections.length) lines.push(`    … and ${s.rejected - s.rejections.length} more`);
  return lines.join('\n');
}

export function registerDnc(program: Command): void {
  const dnc = program.command('dnc').description("a company's do-not-call list: the dialer never calls a listed number");
  dnc
    .command('add')
    .description('list numbers (E.164); a number already listed keeps its first entry')
    .requiredOption('--company <id>', 'the company')
    .argument('<phone...>', 'E.164 numbers, e.g. +14155550123')
    .option('--reason <text>', 'why, kept with each number newly listed')
    .option('--json', 'print JSON: {"added", "alreadyListed"}')
    .action((phones: string[], o) =>
      withStore(async (store) => {
        const p = await companyAccess(store, o.company);
        const r = await usage(() => addToDnc(store, p, phones, { source: 'cli', reason: o.reason, now: Date.now() }));
        output(o.json, r, `added ${r.added}, already listed ${r.alreadyListed}`);
      }),
    );
  dnc
    .command('remove')
    .description('take numbers off the list: their leads become callable again')
    .requiredOption('--company <id>', 'the company')
    .argument('<phone...>', 'E.164 numbers')
    .option('--json', 'print JSON: {"removed", "notListed"}')
    .action((phones: string[], o) =>
      withStore(async (store) => {
        const p = await companyAccess(store, o.company);
        const r = await usage(() => removeFromDnc(store, p, phones));
        output(o.json, r, `removed ${r.removed}, not listed ${r.notListed}`);
      }),
    );
  dnc
    .command('list')
    .description('every listed number, in number order, with when, how and why it was listed')
    .requiredOption('--company <id>', 'the company')
    .option('--json', 'print one JSON array of {"phoneNumber", "addedAt", "source", "reason"?}')
    .action((o) =>
      withStore(async (store) => {
        const { companyId } = await companyAccess(store, o.company);
        // A page at a time, written as it is read: the list may hold millions of numbers.
        let after: string | null = null;
        let first = true;
        if (o.json) process.stdout.write('[');
        for (;;) {
          const page = await store.dnc.page(companyId, after, 5000);
          for (const e of page.map(shownEntry)) {
            process.stdout.write(
              o.json
                ? `${first ? '' : ','}${JSON.stringify(e)}`
                : `${[e.phoneNumber, e.addedAt, e.source, ...(e.reason === undefined ? [] : [e.reason])].join('\t')}\n`,
            );
            first = false;
          }
          if (page.length < 5000) break;
          after = page.at(-1)!.phoneNumber;
        }
        if (o.json) process.stdout.write(']\n');
      }),
    );
  dnc
    .command('import')
    .description('stream a CSV of numbers onto the list (source import), 1000 per transaction, with a progress bar on stderr')
    .argument('<file>', 'CSV with a header row; a single column of bare numbers needs none (an E.164 first row is a number)')
    .requiredOption('--company <id>', 'the company')
    .option('--column <name>', 'the column holding the numbers (default: phoneNumber, phone_number, phone or number, or the only column)')
    .option('--json', 'print the summary as JSON')
    .action((file: string, o) =>
      withStore(async (store) => {
        if (!existsSync(file) || !statSync(file).isFile()) throw new UsageError(`cannot read ${file}`);
        const { companyId } = await companyAccess(store, o.company);
        // imported here, like the lead importer (import.ts): the CSV parser and the progress bar are for this command only
        const [{ DncImportError, importDnc }, { createProgress }] = await Promise.all([
          import('../compliance/dnc-import.js'),
          import('../integrations/progress.js'),
        ]);
        try {
          const summary = await importDnc({
            store,
            companyId,
            file,
            column: o.column,
            now: Date.now,
            progress: (totalBytes) => createProgress({ totalBytes }),
          });
          output(o.json, summary, importText(file, summary));
        } catch (err) {
          if (err instanceof DncImportError) throw new UsageError(err.message);
          if (String((err as { code?: unknown }).code).startsWith('CSV_'))
            throw new Error(`${file} is not valid CSV: ${(err as Error).message} (numbers of the chunks before it are listed)`);
          throw err;
        }
      }),
    );
}
