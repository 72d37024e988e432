/**
 * Where a command's database is, said on stderr before it is opened. A SQLite
 * path is relative to the current folder, so a command run from elsewhere
 * would silently create an empty database there: only `serve` and `migrate`
 * may create one; every other command refuses a missing file.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConfigError, type DatabaseConfig } from '../config.js';

/** the SQLite file's absolute path, or the PostgreSQL host and database (never the password) */
function databaseLocation(db: DatabaseConfig): string {
  if (db.kind === 'sqlite') return db.path === ':memory:' ? 'sqlite :memory:' : `sqlite ${resolve(db.path)}`;
  try {
    const url = new URL(db.url);
    return `postgres ${url.host || 'localhost'}/${decodeURIComponent(url.pathname.slice(1)) || '(default database)'}`;
  } catch {
    return 'postgres (DATABASE_URL is not a URL)';
  }
}

/** prints the location; throws when the database must exist and its SQLite file does not */
export function announceDatabase(db: DatabaseConfig, opts: { create: boolean }): void {
  process.stderr.write(`database: ${databaseLocation(db)}\n`);
  if (opts.create || db.kind !== 'sqlite' || db.path === ':memory:') return;
  const path = resolve(db.path);
  if (!existsSync(path))
    throw new ConfigError(
      `no database at ${path}. Set DATABASE_URL to the database to use (a sqlite: path is relative to the current folder), or create it with \`leadline migrate\` or \`leadline serve\``,
    );
}
