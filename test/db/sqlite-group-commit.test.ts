/**
 * SQLite's group commit (src/db/sqlite-group.ts): write transactions that
 * arrive in one turn of the event loop run in one transaction and commit once,
 * and each caller still gets all-or-nothing, its own error, and an answer only
 * once its changes are committed. A second connection to the file (another
 * process would see the same) tells what is committed when.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Db, Executor } from '../../src/db/index.js';
import { openSqlite } from '../../src/db/sqlite.js';
import { openSqliteFile } from '../../src/db/sqlite-driver.js';
import { MAX_GROUP } from '../../src/db/sqlite-group.js';

const dir = mkdtempSync(join(tmpdir(), 'leadline-group-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let db: Db;
let other: ReturnType<typeof openSqliteFile>;
let n = 0;
beforeEach(async () => {
  const path = join(dir, `group-${++n}.db`);
  db = openSqlite(path);
  await sql`create table t (v text primary key)`.execute(db.kysely);
  // a table SQLite rolls the whole transaction back for (a trigger's RAISE(ROLLBACK)), as on a full disk
  await sql`create table doomed (v text)`.execute(db.kysely);
  await sql`create trigger doom before insert on doomed begin select raise(rollback, 'the whole transaction rolled back'); end`.execute(
    db.kysely,
  );
  other = openSqliteFile(path);
});
afterEach(async () => {
  other.close();
  await db.close();
});

const committed = () => (other.prepare('select v from t order by v').all() as { v: string }[]).map((r) => r.v);
const insert = (ex: Executor, v: string) => sql`insert into t (v) values (${v})`.execute(ex);
const tempStore = async (ex: Executor) => Number((await sql<{ temp_store: number }>`pragma temp_store`.execute(ex)).rows[0]!.temp_store);

describe('SQLite group commit', () => {
  it('runs the transactions of one turn in one transaction: none is committed before the last has run', async () => {
    const seen: string[][] = [];
    const all = ['a', 'b', 'c', 'd', 'e'].map((v) =>
      db.writeTx(
        async (tx) => {
          seen.push(committed());
          await insert(tx, v);
          return v;
        },
        { bounded: true },
      ),
    );
    expect(await Promise.all(all)).toEqual(['a', 'b', 'c', 'd', 'e']);
    // one by one, the fifth would have seen the four before it committed
    expect(seen).toEqual([[], [], [], [], []]);
    expect(committed()).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('answers a caller only after the commit that holds its changes', async () => {
    const answers = await Promise.all(
      ['a', 'b', 'c'].map((v) => db.writeTx((tx) => insert(tx, v), { bounded: true }).then(() => committed().includes(v))),
    );
    expect(answers).toEqual([true, true, true]);
  });

  it("undoes a failing transaction's changes alone, rejects it with its own error and commits the others", async () => {
    const results = await Promise.allSettled([
      db.writeTx((tx) => insert(tx, 'a'), { bounded: true }),
      db.writeTx(
        async (tx) => {
          await insert(tx, 'half');
          throw new Error('refused');
        },
        { bounded: true },
      ),
      db.writeTx((tx) => insert(tx, 'a'), { bounded: true }), // a duplicate key: a statement error
      db.writeTx((tx) => insert(tx, 'c'), { bounded: true }),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled']);
    expect(String((results[1] as PromiseRejectedResult).reason)).toContain('refused');
    expect(String((results[2] as PromiseRejectedResult).reason)).toMatch(/UNIQUE constraint failed/);
    expect(committed()).toEqual(['a', 'c']);
  });

  it('runs again, in a new transaction, the ones whose changes were lost when SQLite rolled the whole transaction back', async () => {
    const runs = { a: 0, c: 0 };
    const results = await Promise.allSettled([
      db.writeTx(
        async (tx) => {
          runs.a++;
          await insert(tx, 'a');
        },
        { bounded: true },
      ),
      db.writeTx((tx) => sql`insert into doomed (v) values ('x')`.execute(tx), { bounded: true }),
      db.writeTx(
        async (tx) => {
          runs.c++;
          await insert(tx, 'c');
        },
        { bounded: true },
      ),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(String((results[1] as PromiseRejectedResult).reason)).toContain('the whole transaction rolled back');
    expect(runs).toEqual({ a: 2, c: 1 });
    expect(committed()).toEqual(['a', 'c']);
  });

  it("rejects a lone transaction SQLite rolled back with that error, not the ROLLBACK's 'no transaction is active'", async () => {
    await expect(db.writeTx((tx) => sql`insert into doomed (v) values ('x')`.execute(tx), { bounded: true })).rejects.toThrow(
      'the whole transaction rolled back',
    );
    await expect(db.writeTx((tx) => insert(tx, 'after'))).resolves.toBeDefined();
    expect(committed()).toEqual(['after']);
  });

  it('runs an unbounded transaction alone, its statement journal on disk, between the groups before and after it', async () => {
    const seen: { v: string; committed: string[]; tempStore: number }[] = [];
    const tx = (v: string, bounded: boolean) =>
      db.writeTx(
        async (ex) => {
          seen.push({ v, committed: committed(), tempStore: await tempStore(ex) });
          await insert(ex, v);
        },
        { bounded },
      );
    await Promise.all([tx('a', true), tx('b', true), tx('big', false), tx('c', true)]);
    expect(seen).toEqual([
      { v: 'a', committed: [], tempStore: 2 },
      { v: 'b', committed: [], tempStore: 2 },
      { v: 'big', committed: ['a', 'b'], tempStore: 0 },
      { v: 'c', committed: ['a', 'b', 'big'], tempStore: 2 },
    ]);
    expect(await tempStore(db.kysely)).toBe(0);
  });

  it(`commits at most ${MAX_GROUP} transactions at once; the rest go in the next commit`, async () => {
    const seen: number[] = [];
    await Promise.all(
      Array.from({ length: MAX_GROUP + 3 }, (_, i) =>
        db.writeTx(
          async (tx) => {
            seen.push(committed().length);
            await insert(tx, String(i).padStart(3, '0'));
          },
          { bounded: true },
        ),
      ),
    );
    expect(seen.slice(0, MAX_GROUP).every((c) => c === 0)).toBe(true);
    expect(seen.slice(MAX_GROUP)).toEqual([MAX_GROUP, MAX_GROUP, MAX_GROUP]);
    expect(committed()).toHaveLength(MAX_GROUP + 3);
  });

  it('lets a read waiting for the connection in between two groups, not after every later write', async () => {
    let written = 0;
    let writtenWhenRead = -1;
    // a caller that writes again as soon as its write is answered keeps the queue full
    for (let i = 0; i < 200; i++) {
      await db.writeTx((tx) => insert(tx, `w${String(i).padStart(3, '0')}`), { bounded: true });
      written++;
      if (i === 1)
        void sql`select count(*) as c from t`.execute(db.kysely).then(() => {
          writtenWhenRead = written;
        });
    }
    await sleep(10);
    // one transaction at a time let it in after the third write; a group that kept the connection, after all 200
    expect(writtenWhenRead).toBeGreaterThanOrEqual(2);
    expect(writtenWhenRead).toBeLessThan(2 + MAX_GROUP);
  });

  it('settles every waiting transaction when the database is closed under them (none waits for ever)', { timeout: 10_000 }, async () => {
    const big = db.writeTx(
      async (tx) => {
        await sleep(50);
        await insert(tx, 'big');
      },
      { bounded: false },
    );
    await sleep(10); // the unbounded one is running, alone
    const small = db.writeTx((tx) => insert(tx, 'small'), { bounded: true });
    other.close();
    await db.close();
    other = openSqliteFile(join(dir, 'unused.db'));
    const outcome = (p: Promise<unknown>) =>
      Promise.race([
        p.then(
          () => 'fulfilled',
          () => 'rejected',
        ),
        sleep(1000).then(() => 'pending'),
      ]);
    expect(await outcome(big)).toBe('rejected');
    expect(await outcome(small)).toBe('rejected');
    db = openSqlite(join(dir, 'unused.db'));
  });

  it('keeps reads of the same connection out of an open group: they see only what is committed', async () => {
    const writes = ['a', 'b'].map((v) => db.writeTx((tx) => insert(tx, v), { bounded: true }));
    const read = sql<{ v: string }>`select v from t order by v`.execute(db.kysely);
    await Promise.all(writes);
    const rows = (await read).rows.map((r) => r.v);
    // the read waited for the connection: it ran before the group began or after it committed
    expect([[], ['a', 'b']]).toContainEqual(rows);
  });
});
