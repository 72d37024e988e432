/**
 * A claim's lead.status_changed event, on a real database: one row for the
 * leads it moves from raw (a lead already attempting does not change), its
 * items best first as the claim returns the leads, and none when nothing
 * moved. On PostgreSQL the claim statement writes it itself
 * (src/store/postgres/queue.ts), so this pins the two stores to one answer.
 */
import { describe, expect, it } from 'vitest';
import { claimDue } from '../../src/dialer/claim.js';
import type { Store } from '../../src/store/index.js';
import { availableStores, useStore } from '../helpers/db.js';
import { makeCampaign, seedLeads } from './support.js';

const T0 = Date.parse('2026-03-10T14:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();

describe.each(await availableStores())('the claim event on %s', (kind) => {
  let db: Store;
  useStore(kind, (opened) => {
    db = opened;
  });

  const eventsAfter = async (id: number) =>
    (await db.kysely.selectFrom('events').selectAll().where('id', '>', id).orderBy('id').execute()).map((r) => ({
      type: r.type,
      campaign: r.campaign_id,
      count: Number(r.count),
      at: Number(r.created_at),
      items: JSON.parse(r.items),
    }));

  it('lists the leads moved from raw, best first, in one row; none when only attempting leads are claimed', async () => {
    const campaignId = await makeCampaign(db);
    const [low, highLate, highEarly, again, plain] = await seedLeads(db, campaignId, [
      { priority: 1, externalId: 'low' },
      { priority: 5, scheduledFor: iso(T0 - 1000) },
      { priority: 5, scheduledFor: iso(T0 - 5000), externalId: 'early' },
      { priority: 9 },
      { priority: 1 },
    ]);
    // one lead was called before: attempting, due again
    await db.kysely
      .updateTable('leads')
      .set({ status: 'attempting', attempts: 1, next_attempt_at: iso(T0 - 60_000) })
      .where('id', '=', again!)
      .execute();
    const before = await db.events.lastId();
    const leads = await claimDue(db, { campaignId, maxAttempts: 3, workerId: 'w1', limit: 10, now: T0, leaseMs: 60_000 });
    expect(leads.map((l) => l.id)).toEqual([again, highEarly, highLate, low, plain]);
    const item = (leadId: string | undefined, externalId: string | null) => ({ leadId, externalId, from: 'raw', to: 'attempting' });
    expect(await eventsAfter(before)).toEqual([
      {
        type: 'lead.status_changed',
        campaign: campaignId,
        count: 4,
        at: T0,
        items: [item(highEarly, 'early'), item(highLate, null), item(low, 'low'), item(plain, null)],
      },
    ]);

    // the attempting lead back, due: its claim changes no status and writes no event
    await db.kysely
      .updateTable('leads')
      .set({ claimed_by: null, claimed_at: null, next_attempt_at: iso(T0) })
      .where('id', '=', again!)
      .execute();
    const after = await db.events.lastId();
    const [only] = await claimDue(db, { campaignId, maxAttempts: 3, workerId: 'w2', limit: 10, now: T0 + 1000, leaseMs: 60_000 });
    expect(only?.id).toBe(again);
    expect(await eventsAfter(after)).toEqual([]);
    // nothing due: nothing claimed, nothing written
    expect(await claimDue(db, { campaignId, maxAttempts: 3, workerId: 'w3', limit: 10, now: T0 + 2000, leaseMs: 60_000 })).toEqual([]);
    expect(await eventsAfter(after)).toEqual([]);
  });
});
