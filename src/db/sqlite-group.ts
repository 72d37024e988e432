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
 * as PostgreSQL runs a transaction again after a deadlock (retry.ts). A
 * constraint checked only at COMMIT (a DEFERRABLE foreign key; leadline's
 * schema has none) would fail every transaction of the group with it: a
 * schema that adds one must commit such writes alone (bounded: false).
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

  // One group per hold of the connection: reads that queued for it meanwhile
  // go next, before writes that arrived after them (they would wait behind
  // every later write if the group kept the connection while any remained).
  function run() {
    scheduled = false;
    running = true;
    const group = take();
    deps.kysely
      .connection()
      .execute((conn) => commitGroupSafely(conn as unknown as Transaction<Database>, group))
      .catch((err: unknown) => {
        // the connection could not be had (the database was closed): this group hears it
        for (const p of group) p.reject(err);
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

  // Whatever fails outside a transaction's own statements (a savepoint, the
  // pragma on a connection that was closed meanwhile) fails the group, and
  // leaves no transaction open: no caller waits for ever. A caller settled
  // already (committed, or rejected with its own error) is not changed.
  async function commitGroupSafely(conn: Transaction<Database>, group: Pending[]): Promise<void> {
    const bounded = group[0]!.bounded;
    try {
      if (bounded) deps.journalInMemory(true);
      await commitGroup(conn, group);
    } catch (err) {
      for (const p of group) p.reject(err);
      await rollbackIfOpen(conn).catch(() => {});
    } finally {
      if (bounded) {
        try {
          deps.journalInMemory(false);
        } catch {
          // the connection is gone: there is nothing left to reset
        }
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
