/**
 * createDb(config) → one connection handle over SQLite (better-sqlite3, WAL)
 * or PostgreSQL (pg pool). Only src/db and src/store see which one it is:
 * src/store picks its implementations from `dialect` once, when it opens.
 */
import type { Kysely, Transaction } from 'kysely';
import type { DatabaseConfig } from '../config.js';
import { openPostgres } from './postgres.js';
import type { Database } from './schema.js';
import { openSqlite } from './sqlite.js';

export type Dialect = 'sqlite' | 'postgres';
export type Executor = Kysely<Database> | Transaction<Database>;

export interface WriteTxOptions {
  lock?: string;
  bounded?: boolean;
  /**
   * PostgreSQL: the transaction's statements read indexes by plain index
   * scans, no bitmap scans. A plain scan marks the entries of rows it finds
   * gone (a closed call leaves one in each partial index of the attempts not
   * closed, a released claim one in leads_claimed) so that the next scan steps
   * over them; a bitmap scan never marks them, and until VACUUM each count of
   * a campaign's slots read every call it ever closed (a claim's counts in bench
   * row 7: 2,300 pages and 9 ms, under the campaign's lock, against 250 and 1 ms).
   * Sequential scans are left for what no index serves: with bitmap scans off,
   * statistics taken while many calls were open made the planner read the
   * whole table instead. For transactions whose statements read a few rows
   * by an index, however stale the statistics.
   */
  plainIndexScans?: boolean;
}

export interface Db {
  readonly kysely: Kysely<Database>;
  readonly dialect: Dialect;
  /** where the data is, for people: the file's absolute path, or the server's host and database name */
  readonly location: string;
  /**
   * Runs fn in one write transaction: BEGIN IMMEDIATE on SQLite, where the
   * transactions of one turn of the event loop share it, each in a savepoint,
   * and fn's result is returned once it is committed (sqlite-group.ts); on
   * PostgreSQL after the advisory lock `lock` names, retried whole when it
   * loses a deadlock (retry.ts). Either way fn may run more than once.
   * `bounded`: no statement of fn writes more than a batch (1000 leads, one
   * dialer batch), so SQLite may keep its statement journal in memory
   * (sqlite.ts); an unbounded write (a whole campaign's leads) leaves it out.
   */
  writeTx<T>(fn: (tx: Executor) => Promise<T>, opts?: WriteTxOptions): Promise<T>;
  /** runs a single autocommit statement again when it loses a deadlock (retry.ts) */
  retrying<T>(fn: () => Promise<T>): Promise<T>;
  /**
   * Calls `onChange` soon after another connection commits a change that
   * wakes the dialer (new leads): PostgreSQL's LISTEN on `leadline_events`
   * (sent by the events store), SQLite's `PRAGMA data_version` polled every
   * `pollMs`. Returns what stops it. Changes made through this very
   * connection are not signalled: the caller knows of them.
   */
  watch(onChange: () => void, o?: { pollMs?: number }): () => Promise<void>;
  /**
   * PostgreSQL: analyzes `leads` if nothing has yet, now or once it has rows
   * (statistics.ts); returns what stops the checks. SQLite: nothing to do.
   */
  keepStatistics(onError: (err: unknown) => void): () => Promise<void>;
  /** brings the schema up to date; the names of the migrations applied, none when it was */
  migrate(): Promise<string[]>;
  /** resolves when the database answers a trivial query */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface DbOptions {
  readonly pgPoolSize?: number;
  readonly pgStatementTimeoutMs?: number;
  /** DATABASE_LISTEN_URL: a direct connection for LISTEN when DATABASE_URL goes through PgBouncer */
  readonly pgListenUrl?: string;
}

export function createDb(config: DatabaseConfig, opts: DbOptions = {}): Db {
  return config.kind === 'sqlite' ? openSqlite(config.path) : openPostgres(config.url, opts);
}
