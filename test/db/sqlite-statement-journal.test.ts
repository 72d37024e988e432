/**
 * A bounded write transaction keeps SQLite's statement journal in memory
 * (temp_store = MEMORY for its length, src/db/sqlite.ts); any other, and
 * everything after, keeps the default (a temporary file past 64 KiB).
 */
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { Executor } from '../../src/db/index.js';
import type { Store } from '../../src/store/index.js';
import { useStore } from '../helpers/db.js';

const tempStore = async (ex: Executor) => Number((await sql<{ temp_store: number }>`pragma temp_store`.execute(ex)).rows[0]!.temp_store);

describe('the statement journal of SQLite write transactions', () => {
  let db: Store;
  useStore('sqlite', (opened) => {
    db = opened;
  });

  it('is in memory inside a bounded transaction only, also after one that failed', async () => {
    const MEMORY = 2;
    const DEFAULT = 0;
    expect(await tempStore(db.kysely)).toBe(DEFAULT);
    expect(await db.writeTx((tx) => tempStore(tx), { bounded: true })).toBe(MEMORY);
    expect(await tempStore(db.kysely)).toBe(DEFAULT);
    expect(await db.writeTx((tx) => tempStore(tx))).toBe(DEFAULT);
    await expect(
      db.writeTx(
        async () => {
          throw new Error('refused');
        },
        { bounded: true },
      ),
    ).rejects.toThrow('refused');
    expect(await tempStore(db.kysely)).toBe(DEFAULT);
  });
});
