/**
 * A claim's lead.status_changed event, on a real database: one row for the
 * leads it moves from raw (a lead already attempting does not change), its
 * items best first as the claim returns the leads, and none when nothing
 * moved. And an opening's attempt.started: one row per campaign, in the
 * order of the batch, for the calls opened only. On PostgreSQL the claim and
 * opening statements write them themselves (src/store/postgres/queue.ts), so
 * this pins the two stores to one answer.
 */
import { describe, expect, it } from 'vitest';
import { claimDue } from '../../src/dialer/claim.js';
import type { Store } from '../../src/store/index.js';
import { availableStores, useStore } from '../helpers/db.js';
import { makeCampaign, seedLeads } from './support.js';

const T0 = Date.parse('2026-03-10T14:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();

describe.each(await availableStores())('the claim and opening events on %s', (kind) => {
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

  it('an opening writes one attempt.started per campaign, in the order of the batch, for the calls it opened', async () => {
    const [c1, c2] = [await makeCampaign(db), await makeCampaign(db)];
    await seedLeads(db, c1, [{ externalId: 'a1' }, {}]);
    await seedLeads(db, c2, [{}, { externalId: 'b2' }]);
    const claim = (campaignId: string) => claimDue(db, { campaignId, maxAttempts: 3, workerId: 'w1', limit: 2, now: T0, leaseMs: 60_000 });
    const [a1, a2] = await claim(c1);
    const [b1, b2] = await claim(c2);
    // a2's claim is lost (taken over): it is not opened, and not in the event
    await db.kysely.updateTable('leads').set({ claimed_by: 'w9' }).where('id', '=', a2!.id).execute();
    const opening = (lead: typeof a1, n: number) => ({
      attemptId: `at_ev_${n}`,
      lead: lead!,
      phoneNumber: lead!.phoneNumber,
      startedAt: T0,
      deadlineAt: T0 + 60_000,
    });
    const before = await db.events.lastId();
    expect(await db.queue.open([opening(b2, 1), opening(a1, 2), opening(a2, 3), opening(b1, 4)], T0 + 5)).toEqual([
      'opened',
      'opened',
      'claim lost',
      'opened',
    ]);
    const item = (lead: typeof a1, n: number) => ({ leadId: lead!.id, externalId: lead!.externalId, attemptId: `at_ev_${n}`, attempt: 1 });
    expect(await eventsAfter(before)).toEqual([
      { type: 'attempt.started', campaign: c2, count: 2, at: T0 + 5, items: [item(b2, 1), item(b1, 4)] },
      { type: 'attempt.started', campaign: c1, count: 1, at: T0 + 5, items: [item(a1, 2)] },
    ]);
  });
});
