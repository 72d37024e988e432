/**
 * SQLite write transactions that arrive together commit together (group commit).
 *
 * A commit is most of what a small write costs on SQLite: the WAL frames of
 * every page it changed (a single create changes a leaf of `leads`, of each of
 * its indexes, and of `events` and its three), and, every ~1000 pages, a
 * checkpoint with its fsync. In-process, a lead and its events row cost
 * 585-710 µs (310-370 µs of CPU) committed one by one, 310-385 µs (220-270 µs)
 * ten to a commit (docs/perf-log.md, twelfth session).
 *
 * So a write transaction does not start at once: it waits for the end of the
 * event loop's turn (setImmediate), when every request whose bytes arrived in
 * the same turn has reached its own. Then they run one after the other in ONE
 * `BEGIN IMMEDIATE`, each inside a savepoint, and commit once. What each
 * caller is promised is unchanged:
 * - its promise settles only after the COMMIT that holds its changes (or with
 *   its own error, its changes undone by rolling back to its savepoint);
 * - its changes are all or nothing, and it sees every earlier one's, as if
 *   they had committed one by one in that order;
 * - nothing else runs on the connection between BEGIN and COMMIT: the group
 *   holds Kysely's connection throughout, as one transaction did, so no read
 *   of the process ever sees a change before it commits.
 * A lone transaction runs as before (no savepoint). An unbounded one (a
 * campaign's recycle) always runs alone, with its statement journal on disk
 * (sqlite.ts). When an error ends the whole transaction (SQLite rolls back by
 * itself on a full disk or an I/O error), the transactions that had run in it
 * lost their changes without committing: they run again in the next group,
 * as PostgreSQL runs a transaction again after a deadlock (retry.ts).
 */
import { type Kysely, sql, type Transaction } from 'kysely';
import type { Database } from './schema.js';

type Fn = (tx: Transaction<Database>) => Promise<unknown>;

interface Pending {
  fn: Fn;
  bounded: boolean;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

/** at most this many transactions in one commit, so none waits long for the others */
export const MAX_GROUP = 64;

interface GroupDeps {
  kysely: Kysely<Database>;
  /** whether a transaction is open on the connection (better-sqlite3's inTransaction) */
  inTransaction: () => boolean;
  /** the statement journal in memory (true) or back to SQLite's default */
  journalInMemory: (memory: boolean) => void;
}

export function groupCommit(deps: GroupDeps) {
  const queue: Pending[] = [];
  let scheduled = false;
  let running = false;

  const schedule = () => {
    if (scheduled || running) return;
    scheduled = true;
    setImmediate(run);
  };

  function run() {
    scheduled = false;
    running = true;
    deps.kysely
      .connection()
      .execute((conn) => commitGroups(conn as unknown as Transaction<Database>))
      .catch((err: unknown) => {
        // only a failure to take the connection gets here: everyone waiting hears it
        for (const p of queue.splice(0)) p.reject(err);
      })
      .finally(() => {
        running = false;
        if (queue.length > 0) schedule();
      });
  }

  /** the next group: one unbounded transaction alone, or the bounded ones before it */
  function take(): Pending[] {
    if (!queue[0]!.bounded) return queue.splice(0, 1);
    let n = 0;
    while (n < queue.length && n < MAX_GROUP && queue[n]!.bounded) n++;
    return queue.splice(0, n);
  }

  // what arrived while one group ran goes into the next, on the same connection
  async function commitGroups(conn: Transaction<Database>): Promise<void> {
    while (queue.length > 0) {
      const group = take();
      const bounded = group[0]!.bounded;
      if (bounded) deps.journalInMemory(true);
      try {
        await commitGroup(conn, group);
      } finally {
        if (bounded) deps.journalInMemory(false);
      }
    }
  }

  async function commitGroup(conn: Transaction<Database>, group: Pending[]): Promise<void> {
    try {
      await sql`begin immediate`.execute(conn);
    } catch (err) {
      for (const p of group) p.reject(err);
      return;
    }
    if (group.length === 1) return commitOne(conn, group[0]!);
    const done: [Pending, unknown][] = [];
    for (const [i, p] of group.entries()) {
      await sql`savepoint leadline_group`.execute(conn);
      try {
        const result = await p.fn(conn);
        await sql`release leadline_group`.execute(conn);
        done.push([p, result]);
      } catch (err) {
        p.reject(err);
        if (!deps.inTransaction()) {
          // SQLite ended the transaction: the others' changes are gone, uncommitted
          queue.unshift(...done.map(([q]) => q), ...group.slice(i + 1));
          return;
        }
        await sql`rollback to leadline_group`.execute(conn);
        await sql`release leadline_group`.execute(conn);
      }
    }
    try {
      await sql`commit`.execute(conn);
    } catch (err) {
      await rollbackIfOpen(conn);
      for (const [p] of done) p.reject(err);
      return;
    }
    for (const [p, result] of done) p.resolve(result);
  }

  async function commitOne(conn: Transaction<Database>, p: Pending): Promise<void> {
    try {
      const result = await p.fn(conn);
      await sql`commit`.execute(conn);
      p.resolve(result);
    } catch (err) {
      await rollbackIfOpen(conn);
      p.reject(err);
    }
  }

  async function rollbackIfOpen(conn: Transaction<Database>): Promise<void> {
    if (deps.inTransaction()) await sql`rollback`.execute(conn);
  }

  return function writeTx<T>(fn: (tx: Transaction<Database>) => Promise<T>, bounded: boolean): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      queue.push({ fn, bounded, resolve: resolve as (value: unknown) => void, reject });
      schedule();
    });
  };
}
