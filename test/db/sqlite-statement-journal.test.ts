/**
 * A bounded write transaction keeps SQLite's statement journal in memory
 * (temp_store = MEMORY for its length, src/db/sqlite.ts); any other, and
 * everything after, keeps the default (a temporary file past 64 KiB).
 */
import { sql } from 'kysely';
import { describe, expect, it, vi } from 'vitest';
import { createCampaign, createCompany } from '../../src/campaigns/service.js';
import type { Executor } from '../../src/db/index.js';
import { newIds } from '../../src/ids.js';
import { insertThenLookup } from '../../src/leads/bulk-create.js';
import { LeadService } from '../../src/leads/service.js';
import { KyselyEventStore } from '../../src/store/events.js';
import type { Store } from '../../src/store/index.js';
import { useStore } from '../helpers/db.js';

const tempStore = async (ex: Executor) => Number((await sql<{ temp_store: number }>`pragma temp_store`.execute(ex)).rows[0]!.temp_store);

const MEMORY = 2;
const DEFAULT = 0;

describe('the statement journal of SQLite write transactions', () => {
  let db: Store;
  useStore('sqlite', (opened) => {
    db = opened;
  });

  it('is in memory inside a bounded transaction only, also after one that failed', async () => {
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

  it("is in memory in the stores' batch writes (bulk create and delete, a claim), not in a campaign's recycle", async () => {
    const { companyId } = await createCompany(db, 'Journal Co');
    const { campaignId } = await createCampaign(db, { companyId, name: 'c' });
    // every one of these writes its events in its transaction: what temp_store is there
    const seen: number[] = [];
    const append = KyselyEventStore.prototype.append;
    const spy = vi.spyOn(KyselyEventStore.prototype, 'append').mockImplementation(async function (this: KyselyEventStore, ...events) {
      seen.push(await tempStore((this as unknown as { ex: Executor }).ex));
      return append.apply(this, events);
    });
    try {
      const rows = newIds('ld_', 2).map((id, i) => ({
        id,
        phoneNumber: `+1415555${String(1000 + i)}`,
        externalId: null,
        metadata: '{}',
        scheduledFor: null,
        priority: 0,
      }));
      await insertThenLookup(db, campaignId, rows, Date.now);
      expect(seen.splice(0)).toEqual([MEMORY]);
      await new LeadService(db).bulkDelete({ companyId, campaignId: null }, campaignId, [{ phoneNumber: '+14155551000' }]);
      expect(seen.splice(0)).toEqual([MEMORY]);
      await db.queue.claim({ campaignId, maxAttempts: 3, workerId: 'w', limit: 1, now: Date.now(), leaseMs: 60_000, openZones: null });
      expect(seen.splice(0)).toEqual([MEMORY]);
      await db.queue.recycle(campaignId, 3, 1);
      expect(seen.splice(0)).toEqual([DEFAULT]);
    } finally {
      spy.mockRestore();
    }
  });
});
