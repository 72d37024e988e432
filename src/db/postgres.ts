/** PostgreSQL through a pg pool, for several instances sharing one database. */
import {
  Kysely,
  PostgresDialect,
  type PostgresPool,
  type PostgresPoolClient,
  type PostgresQueryResult,
  type RawBuilder,
  sql,
} from 'kysely';
import { createRequire } from 'node:module';
import type pgTypes from 'pg';
import type { Db, DbOptions, WriteTxOptions } from './index.js';
import { migrate } from './migrations.js';
import { retrying } from './retry.js';
import { keepLeadStatistics } from './statistics.js';
import { StatementNames } from './statement-names.js';
import type { Database } from './schema.js';

/**
 * pg, loaded when a PostgreSQL database is opened: every CLI command and a
 * SQLite server would otherwise load it (~0.1 s; a CLI start now takes ~0.14 s). pg is
 * CommonJS, so a synchronous require keeps openPostgres synchronous.
 */
let loaded: typeof pgTypes | undefined;
const pgLib = (): typeof pgTypes => (loaded ??= createRequire(import.meta.url)('pg') as typeof pgTypes);

/**
 * A write transaction's first statement. `lock`: a transaction-scoped advisory
 * lock, so that bulk writes to one campaign queue behind each other instead of
 * deadlocking on each other's unique-index entries (at a 1 s deadlock_timeout).
 * `plainIndexScans` (WriteTxOptions): settings of the transaction's own scope,
 * as SET LOCAL, which PgBouncer's transaction mode keeps.
 */
function txPreamble(o: WriteTxOptions | undefined): RawBuilder<unknown> | null {
  const parts: RawBuilder<unknown>[] = [];
  if (o?.lock) parts.push(sql`pg_advisory_xact_lock(hashtextextended(${o.lock}, 0))`);
  if (o?.plainIndexScans) parts.push(sql`set_config('enable_bitmapscan', 'off', true), set_config('enable_seqscan', 'off', true)`);
  return parts.length === 0 ? null : sql`select ${sql.join(parts)}`;
}

/**
 * The pool Kysely sees: every statement goes to pg as `client.query(text,
 * values, callback)`, with a read timeout of our own. Kysely calls
 * `client.query(text, values)`, pg's promise form, which (like pg's own
 * `query_timeout`) sets the query's callback after creating it; with either,
 * a large result costs far more garbage collection. One list page of 8000
 * leads, in-process, same statement and same JSON, CPU per page: pg's promise
 * form 24-25 ms, its callback form 15-16 ms (scavenges 3x shorter), pg's
 * query_timeout alone 23-24 ms; leadline's list page 33-34 ms before, 18-20 ms
 * now (the bench floor's pool.query: 17-19 ms).
 * The timeout keeps pg's message ('Query read timeout', a 503) and, unlike
 * pg's, the connection it happened on is dropped on release instead of
 * serving the next statement behind the one that never answered.
 * With `names`, statements go as prepared statements (see StatementNames).
 */
function callbackQueries(pool: pgTypes.Pool, readTimeoutMs: number, names: StatementNames | null): PostgresPool {
  const wrappers = new WeakMap<pgTypes.PoolClient, PostgresPoolClient>();
  const wrap = (client: pgTypes.PoolClient): PostgresPoolClient => {
    let broken: Error | undefined;
    const query = (text: string, values: ReadonlyArray<unknown>) =>
      new Promise<PostgresQueryResult<unknown>>((resolve, reject) => {
        if (broken) return reject(broken);
        const timer = setTimeout(() => reject((broken = new Error('Query read timeout'))), readTimeoutMs);
        const done = (err: Error | undefined, result: pgTypes.QueryResult) => {
          clearTimeout(timer);
          if (err && STALE_PREPARED.has((err as { code?: string }).code ?? '')) broken = err;
          if (err) reject(err);
          else resolve(result as unknown as PostgresQueryResult<unknown>);
        };
        try {
          const name = names?.nameOf(text);
          if (name === undefined) client.query(text, values as unknown[], done);
          else client.query({ name, text, values: values as unknown[] }, done);
        } catch (err) {
          clearTimeout(timer);
          reject(err);
        }
      });
    return {
      query: ((textOrCursor: unknown, values?: ReadonlyArray<unknown>) =>
        typeof textOrCursor === 'string'
          ? query(textOrCursor, values ?? [])
          : client.query(textOrCursor as pgTypes.Submittable)) as PostgresPoolClient['query'],
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

/**
 * A connection whose prepared statement no longer fits the table (0A000,
 * "cached plan must not change result type": a column added by a newer
 * instance's migration under a `select *`) or was lost (26000) fails the
 * statement, and is dropped on release: a fresh connection prepares again.
 */
const STALE_PREPARED = new Set(['0A000', '26000']);

/** host, port and database name: where the data is, without the credentials */
function describe(url: string): string {
  try {
    const u = new URL(url);
    return `PostgreSQL ${u.hostname || 'localhost'}:${u.port || '5432'}/${decodeURIComponent(u.pathname.slice(1)) || u.username || 'postgres'}`;
  } catch {
    return 'PostgreSQL';
  }
}

/**
 * LISTEN on its own connection (a pooled one is handed to other statements
 * between queries, and a transaction-mode pooler such as PgBouncer cannot
 * hold a LISTEN at all). A lost connection is opened again after a second;
 * the caller is told once it is back, as changes may have been missed.
 */
function listen(url: string, channel: string, onChange: () => void): () => Promise<void> {
  let client: pgTypes.Client | undefined;
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;
  const connect = async () => {
    if (stopped) return;
    const c = new (pgLib().Client)({ connectionString: url, connectionTimeoutMillis: 2000 });
    client = c;
    // once per client: an error event and a failed connect can both report one loss
    const lost = () => {
      if (client !== c) return;
      client = undefined;
      c.end().catch(() => {});
      if (!stopped) retry = setTimeout(connect, 1000);
    };
    c.on('notification', () => onChange());
    c.on('error', lost);
    try {
      await c.connect();
      await c.query(`listen ${channel}`);
      onChange();
    } catch {
      lost();
    }
  };
  void connect();
  return async () => {
    stopped = true;
    clearTimeout(retry);
    await client?.end().catch(() => {});
  };
}

/**
 * `?pgbouncer=true` on DATABASE_URL: leadline reaches PostgreSQL through a
 * pooler in transaction mode (PgBouncer's pool_mode = transaction), where a
 * server connection serves another client after every transaction. Two
 * things then change (docs/operations.md, "Behind PgBouncer"):
 * - no `statement_timeout` startup parameter: PgBouncer refuses the
 *   connection over it ("unsupported startup parameter"), and a SET would
 *   stay on a server connection other clients share. The server-side limit
 *   is then the pooler's `query_timeout` or the role's own setting; the
 *   client-side read timeout below still applies.
 * - no LISTEN through the pooler: the notification would reach whichever
 *   client holds the server connection by then. The dialer LISTENs on
 *   DATABASE_LISTEN_URL (a direct connection) when it is set, and otherwise
 *   polls the events table's last id.
 */
export interface PoolerOptions {
  readonly pgbouncer: boolean;
  /** the pooler's parameter removed: pg would not know it */
  readonly url: string;
}

export function poolerOptions(url: string): PoolerOptions {
  const u = new URL(url);
  const value = u.searchParams.get('pgbouncer');
  if (value === null) return { pgbouncer: false, url };
  u.searchParams.delete('pgbouncer');
  return { pgbouncer: value === 'true' || value === '1', url: u.toString() };
}

/**
 * The events table's last id, every pollMs: the change signal when no LISTEN
 * can be held. After a failed poll the first one that works signals once
 * whatever it reads, as listen() does on reconnecting: a lead added while the
 * database was away moved max(id) before any poll could see it, and without
 * the signal it waited for the dialer's --poll-interval.
 */
function pollEvents(kysely: Kysely<Database>, onChange: () => void, pollMs: number): () => Promise<void> {
  let last: number | null = null;
  let failed = false;
  let stopped = false;
  let running: Promise<void> = Promise.resolve();
  const tick = async () => {
    try {
      const row = await sql<{ id: number | null }>`select max(id) as id from events`.execute(kysely);
      const id = Number(row.rows[0]?.id ?? 0);
      if (failed || (last !== null && id !== last)) onChange();
      last = id;
      failed = false;
    } catch {
      // the database is away: the dialer's own polls report it; a change is signalled once it is back
      failed = true;
    }
  };
  const timer = setInterval(() => {
    if (!stopped) running = running.then(tick);
  }, pollMs);
  timer.unref();
  running = tick();
  return async () => {
    stopped = true;
    clearInterval(timer);
    await running;
  };
}

/**
 * Migrations on a connection of their own, without the pool's statement
 * timeout or read timeout: a migration that builds an index reads the whole
 * table (0018, 0021 on `leads`), which at ten million leads takes far longer
 * than PG_STATEMENT_TIMEOUT_MS, and a server that could not migrate could not
 * start. `set local` in migrate() lifts a role's own timeout too (behind
 * PgBouncer, where no startup parameter is sent).
 */
async function migrateUntimed(url: string): Promise<string[]> {
  const pool = new (pgLib().Pool)({ connectionString: url, max: 1, connectionTimeoutMillis: 2000 });
  pool.on('error', () => {});
  const own = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  try {
    return await migrate(own, 'postgres');
  } finally {
    await own.destroy();
  }
}

export function openPostgres(givenUrl: string, opts: DbOptions): Db {
  const statementTimeoutMs = opts.pgStatementTimeoutMs ?? 5000;
  const { pgbouncer, url } = poolerOptions(givenUrl);
  const pool = new (pgLib().Pool)({
    connectionString: url,
    max: opts.pgPoolSize ?? 10,
    // Fail fast when the server is down instead of queueing requests forever.
    connectionTimeoutMillis: 2000,
    // The server enforces statement_timeout; callbackQueries() adds a
    // client-side bound that also covers a server that stopped answering
    // without closing the connection.
    statement_timeout: pgbouncer ? undefined : statementTimeoutMs,
    // No JIT: PostgreSQL compiled the dialer's claim statement on every run (its estimated cost
    // on a million-lead campaign passes jit_above_cost), which took longer than running it
    // (bench row 7: 250 leads/s with it). A startup parameter, which PgBouncer refuses like
    // statement_timeout: behind it, set `jit = off` for leadline's role (docs/operations.md).
    options: pgbouncer ? undefined : '-c jit=off',
    // bigint columns (seq, epoch ms) fit in a double; parse them as numbers.
    types: {
      getTypeParser: ((oid: number, format?: string) =>
        oid === 20 ? Number : pgLib().types.getTypeParser(oid, format as 'text')) as typeof pgTypes.types.getTypeParser,
    },
  });
  // A client losing its server emits 'error': the pool handles that for idle
  // clients, but a checked-out client between two statements of a transaction
  // has no listener, and an unhandled 'error' event would kill the process.
  // The statement in flight (or the next one) fails on its own and maps to 503.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  const kysely = new Kysely<Database>({
    dialect: new PostgresDialect({ pool: callbackQueries(pool, statementTimeoutMs + 1000, pgbouncer ? null : new StatementNames()) }),
  });
  return {
    kysely,
    dialect: 'postgres',
    location: describe(url) + (pgbouncer ? ' (through PgBouncer)' : ''),
    writeTx: (fn, o) =>
      retrying(() =>
        kysely.transaction().execute(async (tx) => {
          const first = txPreamble(o);
          if (first) await first.execute(tx);
          return fn(tx);
        }),
      ),
    retrying,
    watch: (onChange, o) =>
      !pgbouncer
        ? listen(url, 'leadline_events', onChange)
        : opts.pgListenUrl
          ? listen(opts.pgListenUrl, 'leadline_events', onChange)
          : pollEvents(kysely, onChange, o?.pollMs ?? 100),
    keepStatistics: (onError) => keepLeadStatistics(kysely, onError),
    migrate: () => migrateUntimed(url),
    ping: async () => {
      await sql`select 1`.execute(kysely);
    },
    close: () => kysely.destroy(),
  };
}
