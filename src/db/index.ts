/**
 * createDb(config) → one Kysely instance over SQLite (better-sqlite3, WAL) or
 * PostgreSQL (pg pool). Everything dialect-specific stays inside src/db.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import {
  Kysely,
  PostgresDialect,
  type PostgresPool,
  type PostgresPoolClient,
  type PostgresQueryResult,
  SqliteDialect,
  type SqliteDatabase,
  sql,
  type Transaction,
} from 'kysely';
import pg from 'pg';
import type { DatabaseConfig } from '../config.js';
import { migrate } from './migrations.js';
import type { Database } from './schema.js';

export type Dialect = 'sqlite' | 'postgres';
export type Executor = Kysely<Database> | Transaction<Database>;

export interface Db {
  readonly kysely: Kysely<Database>;
  readonly dialect: Dialect;
  /**
   * Runs fn in a write transaction. On SQLite it is BEGIN IMMEDIATE, so the
   * write lock is taken up front and two processes never deadlock upgrading a
   * read lock (busy_timeout then simply waits for the other writer).
   * On PostgreSQL, `lock` names a transaction-scoped advisory lock taken
   * first: bulk writes to one campaign queue behind each other instead of
   * deadlocking on each other's unique-index entries (two overlapping bulks in
   * opposite orders otherwise deadlock and cost a 1 s deadlock_timeout), and a
   * deadlock or serialization failure that still happens is retried.
   */
  writeTx<T>(fn: (tx: Executor) => Promise<T>, opts?: { lock?: string }): Promise<T>;
  migrate(): Promise<void>;
  /** resolves when the database answers a trivial query */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface DbOptions {
  readonly pgPoolSize?: number;
  readonly pgStatementTimeoutMs?: number;
}

/**
 * Kysely's SQLite driver prepares every statement anew, and for leadline's
 * small statements better-sqlite3's prepare() costs more than running them
 * (bench/: the limit=1 list statement 92 µs prepared each time, 24 µs reused;
 * small authenticated calls +X% req/s). Statements are reused by SQL text. The
 * texts are a small fixed set (a bulk binds its whole batch as one JSON
 * parameter, so no text grows with the data); the cache is bounded all the same.
 * Reuse is safe: the one connection runs one statement at a time.
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

function sqlite(path: string): Db {
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
    migrate: () => migrate(kysely, 'sqlite'),
    ping: async () => {
      await sql`select 1`.execute(kysely);
    },
    close: () => kysely.destroy(),
  };
}

/**
 * The pool Kysely sees: every statement goes to pg as `client.query(text,
 * values, callback)`, with a read timeout of our own. Kysely calls
 * `client.query(text, values)`, pg's promise form, which (like pg's own
 * `query_timeout`) sets the query's callback after creating it; with either,
 * a large result costs far more garbage collection. One list page of 8000
 * leads, in-process, same statement and same JSON, CPU per page: pg's promise
 * form 24-25 ms, its callback form 15-16 ms (scavenges 3x shorter), pg's
 * query_timeout alone 23-24 ms; leadline's listPage through Kysely 33-34 ms
 * before, 18-20 ms now (the floor's pool.query: 17-19 ms). bench/, PostgreSQL
 * row 3 (list page of 8000), same run order: 1.32x -> 1.09x the floor.
 * The timeout keeps pg's message ('Query read timeout', a 503) and, unlike
 * pg's, the connection it happened on is dropped on release instead of
 * serving the next statement behind the one that never answered.
 */
function callbackQueries(pool: pg.Pool, readTimeoutMs: number): PostgresPool {
  const wrappers = new WeakMap<pg.PoolClient, PostgresPoolClient>();
  const wrap = (client: pg.PoolClient): PostgresPoolClient => {
    let broken: Error | undefined;
    const query = (text: string, values: ReadonlyArray<unknown>) =>
      new Promise<PostgresQueryResult<unknown>>((resolve, reject) => {
        if (broken) return reject(broken);
        const timer = setTimeout(() => reject((broken = new Error('Query read timeout'))), readTimeoutMs);
        try {
          client.query(text, values as unknown[], (err: Error | undefined, result: pg.QueryResult) => {
            clearTimeout(timer);
            if (err) reject(err);
            else resolve(result as unknown as PostgresQueryResult<unknown>);
          });
        } catch (err) {
          clearTimeout(timer);
          reject(err);
        }
      });
    return {
      query: ((textOrCursor: unknown, values?: ReadonlyArray<unknown>) =>
        typeof textOrCursor === 'string'
          ? query(textOrCursor, values ?? [])
          : client.query(textOrCursor as pg.Submittable)) as PostgresPoolClient['query'],
      release: () => client.release(broken),
    };
  };
  return {
    async connect() {
      const client = await pool.connect();
      let wrapper = wrappers.get(client);
      if (wrapper === undefined) wrappers.set(client, (wrapper = wrap(client)));
      return wrapper;
    },
    end: () => pool.end(),
  };
}

function postgres(url: string, opts: DbOptions): Db {
  const pool = new pg.Pool({
    connectionString: url,
    max: opts.pgPoolSize ?? 10,
    // Fail fast when the server is down instead of queueing requests forever.
    connectionTimeoutMillis: 2000,
    // The server enforces statement_timeout; callbackQueries() adds a
    // client-side bound that also covers a server that stopped answering
    // without closing the connection.
    statement_timeout: opts.pgStatementTimeoutMs ?? 5000,
    // bigint columns (seq, epoch ms) fit in a double; parse them as numbers.
    types: {
      getTypeParser: ((oid: number, format?: string) =>
        oid === 20 ? Number : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
    },
  });
  // A client losing its server emits 'error': the pool handles that for idle
  // clients, but a checked-out client between two statements of a transaction
  // has no listener, and an unhandled 'error' event would kill the process.
  // The statement in flight (or the next one) fails on its own and maps to 503.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  const kysely = new Kysely<Database>({
    dialect: new PostgresDialect({ pool: callbackQueries(pool, (opts.pgStatementTimeoutMs ?? 5000) + 1000) }),
  });
  return {
    kysely,
    dialect: 'postgres',
    writeTx: async (fn, o) => {
      for (let attempt = 1; ; attempt++) {
        try {
          return await kysely.transaction().execute(async (tx) => {
            if (o?.lock) await sql`select pg_advisory_xact_lock(hashtextextended(${o.lock}, 0))`.execute(tx);
            return fn(tx);
          });
        } catch (err) {
          const code = (err as { code?: string }).code;
          if (attempt >= 3 || (code !== '40P01' && code !== '40001')) throw err;
        }
      }
    },
    migrate: () => migrate(kysely, 'postgres'),
    ping: async () => {
      await sql`select 1`.execute(kysely);
    },
    close: () => kysely.destroy(),
  };
}

export function createDb(config: DatabaseConfig, opts: DbOptions = {}): Db {
  return config.kind === 'sqlite' ? sqlite(config.path) : postgres(config.url, opts);
}
