/** The embedded SQLite database: one file, WAL, one connection per process. */
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Kysely, SqliteDialect, sql } from 'kysely';
import type { Db } from './index.js';
import { migrate } from './migrations.js';
import { openSqliteConnection } from './sqlite-driver.js';
import { groupCommit } from './sqlite-group.js';
import type { Database } from './schema.js';

export function openSqlite(path: string): Db {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  // the driver for this Node, its pragmas and statement cache: sqlite-driver.ts
  const database = openSqliteConnection(path);
  const kysely = new Kysely<Database>({ dialect: new SqliteDialect({ database }) });
  const writeTx = groupCommit({
    kysely,
    inTransaction: () => database.raw.inTransaction,
    journalInMemory: (memory) => database.raw.pragma(`temp_store = ${memory ? 'memory' : 'default'}`),
  });
  return {
    kysely,
    dialect: 'sqlite',
    location: path === ':memory:' ? 'SQLite in memory' : `SQLite ${resolve(path)}`,
    // BEGIN IMMEDIATE takes the write lock up front, so two processes never
    // deadlock upgrading a read lock: busy_timeout simply waits for the other
    // writer. Transactions that arrive in one turn of the event loop commit
    // together (sqlite-group.ts).
    //
    // Inside a transaction every statement that writes keeps a statement
    // journal (the pages it changes, as they were, so that it alone can be
    // undone), in a temporary file once it passes 64 KiB. A 1000-lead insert
    // changes ~900 pages: 3.6 MB written to a file and thrown away, 44 against
    // 33 ms of CPU for the insert (the same statement in autocommit needs no
    // journal). A bounded transaction keeps it in memory (temp_store, read when
    // the transaction begins; 4 µs to set and reset); an unbounded one (a
    // campaign's recycle or deletion) keeps the file, so its memory stays small.
    writeTx: (fn, o) => writeTx(fn, o?.bounded ?? false),
    retrying: (fn) => fn(),
    // data_version changes when another connection (another process) commits;
    // reading it costs a few microseconds, so a 50 ms poll is a cheap,
    // cross-process change signal for a file that has no server to notify.
    watch(onChange, o = {}) {
      const version = () => database.raw.pragma('data_version', { simple: true }) as number;
      // read now, not at the first tick: a change in between would be missed
      let last = version();
      const timer = setInterval(() => {
        const now = version();
        if (now !== last) onChange();
        last = now;
      }, o.pollMs ?? 50);
      timer.unref();
      return async () => clearInterval(timer);
    },
    // SQLite plans without statistics as it always has (no ANALYZE has ever run on it)
    keepStatistics: () => async () => {},
    migrate: () => migrate(kysely, 'sqlite'),
    ping: async () => {
      await sql`select 1`.execute(kysely);
    },
    close: () => kysely.destroy(),
  };
}
