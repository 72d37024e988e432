/**
 * LeadStore.insertMany, the bulk insert under every bulk create and import:
 * rows go in request order, so of two rows with one identifier the earlier is
 * inserted and the later skipped, whatever the batch's size. On SQLite a batch
 * goes in statements of powers of two rows, up to 2048 (src/store/sqlite/leads.ts):
 * 5000 rows are 2048 + 2048 + 512 + 256 + 128 + 8, and 4096 rows were once
 * one statement of more parameters than SQLite takes.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { newIds } from '../../src/ids.js';
import type { NewLeadRow } from '../../src/store/leads.js';
import type { Store } from '../../src/store/index.js';
import { availableStores, useStore } from '../helpers/db.js';
import { makeCampaign } from '../dialer/support.js';

let batch = 0;
/** n new leads, each with its own phone number and externalId */
function rows(n: number): NewLeadRow[] {
  batch++;
  return newIds('ld_', n).map((id, i) => ({
    id,
    phoneNumber: `+1${2_000_000_000 + batch * 100_000 + i}`,
    externalId: `b${batch}-${i}`,
    metadata: JSON.stringify({ i }),
    scheduledFor: i % 3 === 0 ? '2030-01-02T02:04:05.000Z' : null,
    priority: i % 101,
  }));
}

describe.each(await availableStores())('insertMany on %s', (kind) => {
  let db: Store;
  let campaignId: string;
  useStore(kind, (opened) => {
    db = opened;
  });
  beforeAll(async () => {
    campaignId = await makeCampaign(db);
  });

  const stored = async (ids: readonly string[]) =>
    db.kysely
      .selectFrom('leads')
      .select(['id', 'phone_number', 'external_id', 'metadata', 'scheduled_for', 'priority', 'status', 'attempts'])
      .where('id', 'in', ids)
      .execute();

  it.each([1, 3, 513, 1000, 4096, 5000])('inserts every row of a batch of %i, each as given', async (n) => {
    const batchRows = rows(n);
    const inserted = await db.leads.insertMany(campaignId, batchRows, Date.now());
    expect(inserted).toEqual(new Set(batchRows.map((r) => r.id)));
    const found = new Map((await stored(batchRows.map((r) => r.id))).map((r) => [r.id, r]));
    expect(found.size).toBe(n);
    for (const r of [batchRows[0]!, batchRows[n >> 1]!, batchRows[n - 1]!]) {
      expect(found.get(r.id)).toMatchObject({
        phone_number: r.phoneNumber,
        external_id: r.externalId,
        metadata: r.metadata,
        priority: r.priority,
        status: 'raw',
        attempts: 0,
      });
      expect(found.get(r.id)!.scheduled_for === null).toBe(r.scheduledFor === null);
    }
  });

  it('keeps the earlier of two rows with one identifier, across the statements of a 5000-row batch', async () => {
    const batchRows = rows(5000);
    const before = rows(1)[0]!;
    await db.leads.insertMany(campaignId, [before], Date.now());
    // later rows repeating earlier ones: in one statement, across statements, and a lead from before
    batchRows[700]!.externalId = batchRows[600]!.externalId;
    batchRows[4500]!.externalId = batchRows[10]!.externalId;
    batchRows[4097]!.phoneNumber = batchRows[4095]!.phoneNumber;
    batchRows[4999]!.phoneNumber = before.phoneNumber;
    const inserted = await db.leads.insertMany(campaignId, batchRows, Date.now());
    const skipped = batchRows.filter((r) => !inserted.has(r.id)).map((r) => batchRows.indexOf(r));
    expect(skipped).toEqual([700, 4097, 4500, 4999]);
    expect(inserted.size).toBe(4996);
  });
});
