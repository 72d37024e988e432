/**
 * --closed-dates in the dialer, on a real database: on a date closed on the
 * called person's calendar the claim leaves the lead alone, also when the
 * campaign's own zone is already past that date (and the reverse); a claim
 * taken before the called person's midnight is given back right before the
 * call; explain names the date and the next due time after it; us-federal
 * closes the holidays as observed. docs/compliance.md "Closed dates".
 */
import { describe, expect, it } from 'vitest';
import { updateCampaign } from '../../src/campaigns/service.js';
import { type CallDeps, dialLead } from '../../src/dialer/call.js';
import { loadDialerCampaigns, localOf } from '../../src/dialer/campaign.js';
import { claimDue } from '../../src/dialer/claim.js';
import { explainLead } from '../../src/dialer/explain.js';
import { Schedule } from '../../src/dialer/schedule.js';
import type { Store } from '../../src/store/index.js';
import { availableStores, useStore } from '../helpers/db.js';
import { attemptRows, dialerAt, leadRow, makeCampaign, seedLeads } from '../dialer/support.js';

// Christmas Eve, 07:00 in New York, already Christmas Day 01:00 in Auckland
const EVE_NY = Date.parse('2026-12-24T12:00:00.000Z');
const NY_NUMBER = '+12125550100';
const LONDON_NUMBER = '+442079460100';

describe.each(await availableStores())('closed dates in the dialer on %s', (kind) => {
  let db: Store;
  useStore(kind, (opened) => {
    db = opened;
  });

  const worker = (campaignId: string, now: number) => dialerAt(db, campaignId, now);
  const dialerCampaign = async (id: string) =>
    (await loadDialerCampaigns(db, [id], { random: () => 0, simulateDurationMs: [0, 0] }, () => {}))[0]!;

  it("a date closed in the called person's zone while open in the campaign's: not claimed until their midnight", async () => {
    const c = await makeCampaign(db, { timezone: 'Pacific/Auckland', closed_dates: '2026-12-24' });
    const [ny, london] = await seedLeads(db, c, [{ phoneNumber: NY_NUMBER }, { phoneNumber: LONDON_NUMBER }]);
    // Auckland is on Dec 25, New York and London on Dec 24: nobody is called
    expect(await worker(c, EVE_NY).runOnce()).toMatchObject({ attempts: 0 });
    expect(await leadRow(db, ny!)).toMatchObject({ status: 'raw', claimed_by: null, attempts: 0 });

    const why = await explainLead(db, c, { phoneNumber: NY_NUMBER }, EVE_NY);
    expect(why).toMatchObject({ due: false, reasons: ['closed date'], zones: ['America/New_York'] });
    expect(why.details['closed date']).toBe('2026-12-24 in America/New_York');
    expect(why.nextDueAt?.toISOString()).toBe('2026-12-25T05:00:00.000Z');

    // London's midnight comes first: only the London lead is called
    const londonMidnight = Date.parse('2026-12-25T00:00:00.000Z');
    expect(await worker(c, londonMidnight).runOnce()).toMatchObject({ attempts: 1 });
    expect((await leadRow(db, london!))!.status).toBe('concluded');
    expect((await leadRow(db, ny!))!.status).toBe('raw');
    expect(await worker(c, Date.parse('2026-12-25T04:59:00.000Z')).runOnce()).toMatchObject({ attempts: 0 });
    expect(await worker(c, Date.parse('2026-12-25T05:00:00.000Z')).runOnce()).toMatchObject({ attempts: 1 });
    expect((await leadRow(db, ny!))!.status).toBe('concluded');
  });

  it("a date closed in the campaign's zone but not in the called person's: they are called", async () => {
    const c = await makeCampaign(db, { timezone: 'Pacific/Auckland', closed_dates: '2026-12-25' });
    const [ny] = await seedLeads(db, c, [{ phoneNumber: NY_NUMBER }]);
    expect((await explainLead(db, c, { phoneNumber: NY_NUMBER }, EVE_NY)).due).toBe(true);
    expect(await worker(c, EVE_NY).runOnce()).toMatchObject({ attempts: 1 });
    expect((await leadRow(db, ny!))!.status).toBe('concluded');
  });

  it("a lead claimed before the called person's midnight is given back right before the call, due after the closed date", async () => {
    const c = await makeCampaign(db, { closed_dates: '2026-11-01' });
    const [id] = await seedLeads(db, c, [{ phoneNumber: NY_NUMBER }]);
    const claimedAt = Date.parse('2026-11-01T03:59:00.000Z'); // Oct 31, 23:59 EDT
    const campaign = await dialerCampaign(c);
    const [lead] = await claimDue(db, {
      campaignId: c,
      maxAttempts: 3,
      workerId: 'w1',
      limit: 1,
      now: claimedAt,
      leaseMs: 60_000,
      local: localOf(campaign),
    });
    expect(lead!.id).toBe(id);
    const callAt = claimedAt + 60_000; // Nov 1, 00:00 EDT: closed
    let placed = 0;
    const deps: CallDeps = {
      store: db,
      now: () => callAt,
      predialTimeoutMs: 1000,
      open: async (o) => (await db.queue.open([o], callAt))[0]!,
      close: async (x) => (await db.queue.close([x], 'dialer', callAt))[0]!,
      notPlaced: async () => 0,
      placed: async () => {
        placed++;
      },
    };
    // the day DST ends is 25 hours long: it ends at 05:00Z, not 04:00Z
    expect(await dialLead(deps, campaign, lead!, new AbortController().signal)).toEqual({
      kind: 'deferred',
      until: '2026-11-02T05:00:00.000Z',
    });
    expect(placed).toBe(0);
    expect(await attemptRows(db, id!)).toEqual([]);
    expect(await leadRow(db, id!)).toMatchObject({ status: 'raw', claimed_by: null, attempts: 0 });
    expect((await explainLead(db, c, { phoneNumber: NY_NUMBER }, callAt)).nextDueAt?.toISOString()).toBe('2026-11-02T05:00:00.000Z');
  });

  it('us-federal closes the observed holiday (Independence Day 2026, a Saturday, is observed on Friday July 3)', async () => {
    const c = await makeCampaign(db, { closed_dates: 'us-federal', local_window: '08:00-21:00' });
    const [id] = await seedLeads(db, c, [{ phoneNumber: NY_NUMBER }]);
    const friday = Date.parse('2026-07-03T14:00:00.000Z'); // 10:00 EDT
    expect(await worker(c, friday).runOnce()).toMatchObject({ attempts: 0 });
    const why = await explainLead(db, c, { phoneNumber: NY_NUMBER }, friday);
    expect(why.reasons).toEqual(['closed date']);
    expect(why.details['closed date']).toBe('2026-07-03 in America/New_York (Independence Day, us-federal)');
    // July 4 itself is not a federal holiday that year: due at 08:00 EDT on Saturday
    expect(why.nextDueAt?.toISOString()).toBe('2026-07-04T12:00:00.000Z');
    // the setting removed: called at once (existing behaviour)
    await updateCampaign(db, c, { closed_dates: '' });
    expect(await worker(c, friday).runOnce()).toMatchObject({ attempts: 1 });
    expect((await leadRow(db, id!))!.status).toBe('concluded');
  });

  it("an idle dialer asks the campaign again at the called person's midnight, not only at its next poll", async () => {
    const c = await makeCampaign(db, { closed_dates: '2026-12-24' });
    await seedLeads(db, c, [{ phoneNumber: NY_NUMBER }]);
    const beforeMidnight = Date.parse('2026-12-25T04:58:00.000Z'); // Dec 24, 23:58 EST
    // a claim (none taken) works out the lead's zones
    expect(await worker(c, beforeMidnight).runOnce()).toMatchObject({ attempts: 0 });
    const hour = 3_600_000;
    const schedule = new Schedule(db, hour, 1000);
    const campaign = await dialerCampaign(c);
    await schedule.after(campaign, 'idle', beforeMidnight);
    expect(schedule.nextCheck(beforeMidnight)).toBe(beforeMidnight + 60_000); // looked at every minute
    expect(await schedule.isDue(campaign, beforeMidnight + 60_000)).toBe(false); // 23:59, still closed
    expect(await schedule.isDue(campaign, beforeMidnight + 120_000)).toBe(true); // 00:00 on the 25th
  });
});
