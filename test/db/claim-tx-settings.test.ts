/**
 * A claim's transaction turns bitmap and sequential scans off for itself alone (no leak to
 * the pooled connection's next transactions, after a rollback either), and again when it is
 * run again after a deadlock. Written by a review of WriteTxOptions.plainIndexScans.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Db, type Executor } from '../../src/db/index.js';
import { claimTxOptions } from '../../src/store/shared/claims.js';
import type { Store } from '../../src/store/index.js';
import { availableStores, createTestStore, type TestStore } from '../helpers/db.js';

const kinds = (await availableStores()).filter((k) => k === 'postgres');

describe.each(kinds)('claim transaction settings on %s', (kind) => {
  let store: TestStore;
  let db: Store;
  let raw: Db;
  beforeAll(async () => {
    store = await createTestStore(kind);
    db = await store.open();
    raw = createDb(store.config, { pgPoolSize: 1 });
  });
  afterAll(async () => {
    await raw?.close();
    await db?.close();
    await store?.drop();
  });

  const settings = async (ex: Executor) => {
    const { rows } = await sql<{
      b: string;
      s: string;
    }>`select current_setting('enable_bitmapscan') b, current_setting('enable_seqscan') s`.execute(ex);
    return rows[0]!;
  };

  it('applies inside the claim only, not to the next transactions or statements of the one pooled connection', async () => {
    expect(await raw.writeTx((tx) => settings(tx), claimTxOptions('cmp_x'))).toEqual({ b: 'off', s: 'off' });
    expect(await settings(raw.kysely)).toEqual({ b: 'on', s: 'on' });
    expect(await raw.writeTx((tx) => settings(tx))).toEqual({ b: 'on', s: 'on' });
    // a claim that fails (rolled back)
    await expect(
      raw.writeTx(async (tx) => {
        await settings(tx);
        throw new Error('boom');
      }, claimTxOptions('cmp_x')),
    ).rejects.toThrow('boom');
    expect(await settings(raw.kysely)).toEqual({ b: 'on', s: 'on' });
  });

  it('applies again when retrying() runs the claim again after a deadlock', async () => {
    const seen: unknown[] = [];
    const result = await raw.writeTx(async (tx) => {
      seen.push(await settings(tx));
      if (seen.length === 1) throw Object.assign(new Error('deadlock detected'), { code: '40P01' });
      return 'ok';
    }, claimTxOptions('cmp_x'));
    expect(result).toBe('ok');
    expect(seen).toEqual([
      { b: 'off', s: 'off' },
      { b: 'off', s: 'off' },
    ]);
    expect(await settings(raw.kysely)).toEqual({ b: 'on', s: 'on' });
  });
});
