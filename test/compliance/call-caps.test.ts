/**
 * Per-number call caps across a company's campaigns, and one call at a time
 * to a number within a company, on a real database: counted right before each
 * call; a capped lead waits until the cap lets a call through, and explain
 * says so. docs/compliance.md "Per-number call caps".
 */
import { describe, expect, it, vi } from 'vitest';
import { createCampaign, createCompany } from '../../src/campaigns/service.js';
import { capReached, formatCallCaps, parseCallCaps } from '../../src/compliance/call-caps.js';
import { claimDue } from '../../src/dialer/claim.js';
import { explainLead } from '../../src/dialer/explain.js';
import { KyselyAttemptStore } from '../../src/store/attempts.js';
import type { Store } from '../../src/store/index.js';
import { availableStores, useStore } from '../helpers/db.js';
import { attemptRows, dialerAt, leadRow, seedLeads } from '../dialer/support.js';

const T0 = Date.parse('2026-03-10T14:00:00.000Z');
const H = 3_600_000;

describe('call caps, parsed', () => {
  it('reads CALLS/WINDOW lists and none', () => {
    expect(parseCallCaps('3/24h,7/7d')).toEqual([
      { max: 3, windowMs: 24 * H },
      { max: 7, windowMs: 7 * 24 * H },
    ]);
    expect(parseCallCaps('none')).toEqual([]);
    expect(parseCallCaps('')).toEqual([]);
    expect(formatCallCaps(parseCallCaps('3/24h, 7/7d'))).toBe('3/1d,7/7d');
    for (const bad of ['3', '0/1h', '3/1x', '3/30s', '3/400d', 'x/1h', '3/1h,'])
      expect(() => parseCallCaps(bad), bad).toThrow(/invalid call cap/);
  });

  it('names the cap reached and when the next call is allowed', () => {
    const caps = parseCallCaps('2/1h,3/1d');
    expect(capReached(caps, [T0 - 10 * 60_000], T0)).toBeNull();
    expect(capReached(caps, [T0 - 50 * 60_000, T0 - 10 * 60_000], T0)).toEqual({ cap: '2/1h', until: T0 + 10 * 60_000 });
    expect(capReached(caps, [T0 - 5 * H, T0 - 3 * H, T0 - 2 * H], T0)).toEqual({ cap: '3/1d', until: T0 + 19 * H });
  });
});

describe.each(await availableStores())('call caps and one call per number on %s', (kind) => {
  let db: Store;
  useStore(kind, (opened) => {
    db = opened;
  });

  const worker = (campaignId: string, now: number) => dialerAt(db, campaignId, now);
  const company = async (caps: string) => {
    const { companyId } = await createCompany(db, 'Caps Co');
    await db.companies.setCallCaps(companyId, caps);
    const campaign = async () =>
      (await createCampaign(db, { companyId, name: 'c', hours: 'mon-sun 00:00-24:00', local_window: '00:00-24:00', regional_rules: 'off' }))
        .campaignId;
    return { companyId, campaign };
  };

  it("counts calls placed to a number across the company's campaigns: at the cap the lead waits, and explain says until when", async () => {
    const { campaign } = await company('2/1h');
    const [c1, c2, c3] = [await campaign(), await campaign(), await campaign()];
    const phoneNumber = '+14155552001';
    const [l1] = await seedLeads(db, c1, [{ phoneNumber }]);
    const [l2] = await seedLeads(db, c2, [{ phoneNumber }]);
    const [l3] = await seedLeads(db, c3, [{ phoneNumber }]);
    expect(await worker(c1, T0).runOnce()).toMatchObject({ attempts: 1 });
    expect(await worker(c2, T0 + 60_000).runOnce()).toMatchObject({ attempts: 1 });
    expect(await worker(c3, T0 + 120_000).runOnce()).toMatchObject({ attempts: 0 });
    expect(await attemptRows(db, l3!)).toEqual([]);
    const until = new Date(T0 + H).toISOString();
    expect(await leadRow(db, l3!)).toMatchObject({ status: 'raw', attempts: 0, claimed_by: null, next_attempt_at: until });
    const why = await explainLead(db, c3, { phoneNumber }, T0 + 120_000);
    expect(why.reasons).toEqual(['scheduled later', "at the company's per-number call cap"]);
    expect(why.details["at the company's per-number call cap"]).toBe(`2/1h; next allowed at ${until}`);
    expect(why.nextDueAt?.toISOString()).toBe(until);
    // once the first call has left the window
    expect(await worker(c3, T0 + H + 1000).runOnce()).toMatchObject({ attempts: 1 });
    expect((await leadRow(db, l3!))!.status).toBe('concluded');
    expect([(await leadRow(db, l1!))!.status, (await leadRow(db, l2!))!.status]).toEqual(['concluded', 'concluded']);
  });

  it("another company's calls and other numbers do not count; a deleted and re-added lead keeps its count", async () => {
    const a = await company('1/1d');
    const b = await company('1/1d');
    const [ca, cb] = [await a.campaign(), await b.campaign()];
    const phoneNumber = '+14155552101';
    await seedLeads(db, ca, [{ phoneNumber }]);
    await seedLeads(db, cb, [{ phoneNumber }, { phoneNumber: '+14155552102' }]);
    expect(await worker(ca, T0).runOnce()).toMatchObject({ attempts: 1 });
    expect(await worker(cb, T0).runOnce()).toMatchObject({ attempts: 2 });
    // re-adding the number as a new lead does not reset what was placed to it
    await db.kysely.deleteFrom('leads').where('campaign_id', '=', ca).execute();
    const [again] = await seedLeads(db, ca, [{ phoneNumber }]);
    expect(await worker(ca, T0 + H).runOnce()).toMatchObject({ attempts: 0 });
    expect((await leadRow(db, again!))!.next_attempt_at).toBe(new Date(T0 + 24 * H).toISOString());
  });

  it('never calls one number twice at once within a company, whatever the caps', async () => {
    const { campaign } = await company('');
    const [c1, c2] = [await campaign(), await campaign()];
    const phoneNumber = '+14155552201';
    await seedLeads(db, c1, [{ phoneNumber }]);
    const [l2] = await seedLeads(db, c2, [{ phoneNumber }]);
    // a call of c1 to the number is in progress (its attempt open)
    const [lead] = await claimDue(db, { campaignId: c1, maxAttempts: 3, workerId: 'w1', limit: 1, now: T0, leaseMs: H });
    const opening = { attemptId: 'at_busy_1', lead: lead!, phoneNumber, startedAt: T0, deadlineAt: T0 + H };
    expect(await db.queue.open([opening], T0)).toEqual(['opened']);
    expect(await worker(c2, T0 + 1000).runOnce()).toMatchObject({ attempts: 0 });
    expect(await attemptRows(db, l2!)).toEqual([]);
    const retry = Number((await db.campaigns.byId(c2))!.retry_delay_ms);
    expect(await leadRow(db, l2!)).toMatchObject({
      status: 'raw',
      claimed_by: null,
      next_attempt_at: new Date(T0 + 1000 + retry).toISOString(),
    });
    // two openings of one batch for the same number: the second is refused
    const [c3, c4] = [await campaign(), await campaign()];
    await seedLeads(db, c3, [{ phoneNumber: '+14155552202' }]);
    await seedLeads(db, c4, [{ phoneNumber: '+14155552202' }]);
    const [x] = await claimDue(db, { campaignId: c3, maxAttempts: 3, workerId: 'w1', limit: 1, now: T0, leaseMs: H });
    const [y] = await claimDue(db, { campaignId: c4, maxAttempts: 3, workerId: 'w1', limit: 1, now: T0, leaseMs: H });
    const open = (id: string, l: typeof x) => ({ attemptId: id, lead: l!, phoneNumber: '+14155552202', startedAt: T0, deadlineAt: T0 + H });
    expect(await db.queue.open([open('at_pair_1', x), open('at_pair_2', y)], T0)).toEqual(['opened', 'number busy']);
  });

  it('two dialers opening calls to the same numbers at once, in opposite orders: each number is called once', async () => {
    const { campaign } = await company('');
    // a race: without the numbers' locks, both sides read no call in progress in some of the rounds
    for (let round = 0; round < 8; round++) {
      const [c1, c2] = [await campaign(), await campaign()];
      const numbers = Array.from({ length: 20 }, (_, i) => `+141555${String(24000 + 100 * round + i)}`);
      await seedLeads(
        db,
        c1,
        numbers.map((phoneNumber) => ({ phoneNumber })),
      );
      await seedLeads(
        db,
        c2,
        numbers.map((phoneNumber) => ({ phoneNumber })),
      );
      const batch = async (campaignId: string, workerId: string) =>
        (await claimDue(db, { campaignId, maxAttempts: 3, workerId, limit: 20, now: T0, leaseMs: H })).map((lead) => ({
          attemptId: `at_race_${workerId}_${lead.phoneNumber}`,
          lead,
          phoneNumber: lead.phoneNumber!,
          startedAt: T0,
          deadlineAt: T0 + H,
        }));
      const a = await batch(c1, 'w1');
      const b = (await batch(c2, 'w2')).reverse();
      // each dialer's batch is one transaction; on PostgreSQL they run side by side on two connections
      const [ra, rb] = await Promise.all([db.queue.open(a, T0), db.queue.open(b, T0)]);
      const opened = [...a.filter((_, i) => ra[i] === 'opened'), ...b.filter((_, i) => rb[i] === 'opened')].map((o) => o.phoneNumber);
      expect(opened.sort(), `round ${round}`).toEqual([...numbers].sort());
      expect([...ra, ...rb].filter((r) => r !== 'opened').every((r) => r === 'number busy')).toBe(true);
    }
  });

  it('one batch of openings counts every number of it, by number and by digest (a deleted lead)', async () => {
    const { campaign } = await company('1/1d');
    const [before, now] = [await campaign(), await campaign()];
    const [plain, deleted, fresh] = ['+14155552301', '+14155552302', '+14155552303'];
    await seedLeads(db, before, [{ phoneNumber: plain }, { phoneNumber: deleted }]);
    expect(await worker(before, T0).runOnce()).toMatchObject({ attempts: 2 });
    // the deleted lead's attempt keeps only the digest of its number
    await db.leads.deleteMany(before, [], [deleted], T0);
    expect(
      (await db.kysely.selectFrom('attempts').select('phone_number').where('campaign_id', '=', before).execute()).map(
        (r) => r.phone_number,
      ),
    ).toEqual(expect.arrayContaining([plain, null]));
    await seedLeads(db, now, [{ phoneNumber: plain }, { phoneNumber: deleted }, { phoneNumber: fresh }]);
    const leads = await claimDue(db, { campaignId: now, maxAttempts: 3, workerId: 'w1', limit: 3, now: T0 + H, leaseMs: H });
    const byNumber = new Map(leads.map((l) => [l.phoneNumber, l]));
    const opening = (n: string) => ({
      attemptId: `at_batch_${n}`,
      lead: byNumber.get(n)!,
      phoneNumber: n,
      startedAt: T0 + H,
      deadlineAt: T0 + 2 * H,
    });
    // the batch is counted with one read of the company's calls (two statements), not one per number
    const batches = vi.spyOn(KyselyAttemptStore.prototype, 'placedToMany');
    const single = vi.spyOn(KyselyAttemptStore.prototype, 'placedTo');
    try {
      expect(await db.queue.open([opening(plain), opening(deleted), opening(fresh)], T0 + H)).toEqual(['call cap', 'call cap', 'opened']);
      expect(single).not.toHaveBeenCalled();
      expect(batches).toHaveBeenCalledTimes(1);
      expect(new Set(batches.mock.calls[0]![1])).toEqual(new Set([plain, deleted, fresh]));
    } finally {
      batches.mockRestore();
      single.mockRestore();
    }
  });
});
