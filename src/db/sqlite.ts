/** The embedded SQLite database: one file, WAL, one connection per process. */
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect, type SqliteDatabase, sql, type Transaction } from 'kysely';
import type { Db } from './index.js';
import { migrate } from './migrations.js';
import type { Database } from './schema.js';

/**
 * Kysely's SQLite driver prepares every statement anew, and for leadline's
 * small statements better-sqlite3's prepare() costs more than running them
 * (the limit=1 list statement: 92 µs prepared each time, 24 µs reused).
 * Statements are reused by SQL text. The texts are a small fixed set (a bulk
 * binds its whole batch as one JSON parameter, so no text grows with the
 * data); the cache is bounded all the same. Reuse is safe: the one
 * connection runs one statement at a time.
 */
const STATEMENT_CACHE_MAX = 500;
function reusingStatements(database: SQLite.Database): SqliteDatabase {
  const cache = new Map<string, SQLite.Statement>();
  return {
    close: () => database.close(),
    prepare(text) {
      let statement = cache.get(text);
      if (statement === undefined) {
        if (cache.size >= STATEMENT_CACHE_MAX) cache.clear();
        statement = database.prepare(text);
        cache.set(text, statement);
      }
      return statement;
    },
  };
}

export function openSqlite(path: string): Db {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const database = new SQLite(path);
  database.pragma('journal_mode = WAL');
  // NORMAL in WAL mode loses nothing when the process dies; only a power cut
  // can drop the last commits. FULL costs an fsync per commit.
  database.pragma('synchronous = NORMAL');
  database.pragma('busy_timeout = 5000');
  database.pragma('foreign_keys = ON');
  const kysely = new Kysely<Database>({ dialect: new SqliteDialect({ database: reusingStatements(database) }) });
  return {
    kysely,
    dialect: 'sqlite',
    location: path === ':memory:' ? 'SQLite in memory' : `SQLite ${resolve(path)}`,
    // BEGIN IMMEDIATE takes the write lock up front, so two processes never
    // deadlock upgrading a read lock: busy_timeout simply waits for the other writer.
    writeTx: (fn) =>
      kysely.connection().execute(async (conn) => {
        await sql`begin immediate`.execute(conn);
        try {
          const result = await fn(conn as unknown as Transaction<Database>);
          await sql`commit`.execute(conn);
          return result;
        } catch (err) {
          await sql`rollback`.execute(conn);
          throw err;
        }
      }),
    retrying: (fn) => fn(),
    // data_version changes when another connection (another process) commits;
    // reading it costs a few microseconds, so a 50 ms poll is a cheap,
    // cross-process change signal for a file that has no server to notify.
    watch(onChange, o = {}) {
      let last: number | undefined;
      const timer = setInterval(() => {
        const version = database.pragma('data_version', { simple: true }) as number;
        if (last !== undefined && version !== last) onChange();
        last = version;
      }, o.pollMs ?? 50);
      timer.unref();
      return async () => clearInterval(timer);
    },
    migrate: () => migrate(kysely, 'sqlite'),
    ping: async () => {
      await sql`select 1`.execute(kysely);
    },
    close: () => kysely.destroy(),
  };
}
