/**
 * The worker in-process on a real database with an injected clock: calling
 * hours (across midnight and a DST change), the called person's local window,
 * concurrency, prefetch leads, exhaustion, deletion mid-call, and stopping.
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { updateCampaign } from '../../src/campaigns/service.js';
import type { Store } from '../../src/store/index.js';
import { explainLead } from '../../src/dialer/explain.js';
import { parseLocalWindow } from '../../src/scheduling/hours.js';
import { claimDue } from '../../src/dialer/claim.js';
import { Dialer, type DialerOptions } from '../../src/dialer/worker.js';
import { availableStores, useStore } from '../helpers/db.js';
import { startStub } from './http-stub.js';
import { attemptRows, leadRow, makeCampaign, seedLeads } from './support.js';

const silent = pino({ level: 'silent' });
const at = (iso: string) => Date.parse(iso);

describe.each(await availableStores())('dialer worker on %s', (kind) => {
  let db: Store;
  useStore(kind, (opened) => {
    db = opened;
  });

  /** a worker for one campaign whose clock reads `now`; random() = 0 makes every simulated call succeed */
  const worker = (campaignId: string, now: number, o: Partial<DialerOptions> = {}) =>
    new Dialer({ store: db, logger: silent, campaignIds: [campaignId], now: () => now, random: () => 0, ...o });
  const statuses = async (ids: string[]) => Promise.all(ids.map(async (id) => (await leadRow(db, id))?.status));

  it('calls only inside calling hours that cross midnight', async () => {
    const c = await makeCampaign(db, { timezone: 'America/New_York', hours: 'fri 20:00-02:00' });
    const [id] = await seedLeads(db, c, [{}]);
    // Friday 2026-03-13 19:59 EDT: not yet; Saturday 02:00 EDT: over.
    expect(await worker(c, at('2026-03-13T23:59:00Z')).runOnce()).toMatchObject({ attempts: 0 });
    expect(await worker(c, at('2026-03-14T06:00:00Z')).runOnce()).toMatchObject({ attempts: 0 });
    expect(await statuses([id!])).toEqual(['raw']);
    // Saturday 01:30 EDT, still Friday's window.
    expect(await worker(c, at('2026-03-14T05:30:00Z')).runOnce()).toEqual({ attempts: 1, concluded: 1, deferred: 0, awaiting: 0 });
    expect(await statuses([id!])).toEqual(['concluded']);
  });

  it('reads calling hours on the wall clock across a DST change', async () => {
    const c = await makeCampaign(db, { timezone: 'America/New_York', hours: 'mon-sun 09:00-17:00' });
    const [id] = await seedLeads(db, c, [{}]);
    // 13:30Z is 08:30 EST on Saturday 2026-03-07, but 09:30 EDT on Sunday after the clocks sprang forward.
    expect(await worker(c, at('2026-03-07T13:30:00Z')).runOnce()).toMatchObject({ attempts: 0 });
    expect(await worker(c, at('2026-03-08T13:30:00Z')).runOnce()).toMatchObject({ attempts: 1 });
    expect(await statuses([id!])).toEqual(['concluded']);
    // In autumn 21:30Z is 17:30 EDT on Saturday 2026-10-31 (closed), 16:30 EST on Sunday (open).
    const [later] = await seedLeads(db, c, [{}]);
    expect(await worker(c, at('2026-10-31T21:30:00Z')).runOnce()).toMatchObject({ attempts: 0 });
    expect(await worker(c, at('2026-11-01T21:30:00Z')).runOnce()).toMatchObject({ attempts: 1 });
    expect(await statuses([later!])).toEqual(['concluded']);
  });

  it("leaves a lead outside the called person's local window untouched until it opens: no claim, no status change", async () => {
    const c = await makeCampaign(db, { local_window: '08:00-21:00' });
    const [la, london, override, unknownNanp] = await seedLeads(db, c, [
      { phoneNumber: '+14155550100' }, // Los Angeles
      { phoneNumber: '+442079460100' }, // London
      { phoneNumber: '+442079460101', metadata: { timezone: 'America/Los_Angeles' } },
      { phoneNumber: '+18005550100' }, // toll-free: every US/Canada zone from Newfoundland to Hawaii
    ]);
    const waiting = [la!, override!, unknownNanp!];
    const before = await Promise.all(waiting.map((id) => leadRow(db, id)));
    const now = at('2026-03-10T14:00:00Z'); // 07:00 PDT, 14:00 GMT, 04:00 HST
    expect(await worker(c, now).runOnce()).toEqual({ attempts: 1, concluded: 1, deferred: 0, awaiting: 0 });
    expect(await statuses([la!, london!, override!, unknownNanp!])).toEqual(['raw', 'concluded', 'raw', 'raw']);
    // Nothing about the waiting leads changed but the zones the dialer worked out for them.
    const after = await Promise.all(waiting.map((id) => leadRow(db, id)));
    expect(after.map((row) => ({ ...row, local_zones: null }))).toEqual(before);
    expect(after.every((row) => row!.local_zones !== null)).toBe(true);
    // Another worker's claim does not take them either.
    const local = { window: parseLocalWindow('08:00-21:00'), windowSpec: '08:00-21:00', timezone: 'UTC' };
    expect(await claimDue(db, { campaignId: c, maxAttempts: 3, workerId: 'other', limit: 5, now, leaseMs: 1000, local })).toEqual([]);
    expect(await explainLead(db, c, { phoneNumber: '+14155550100' }, now)).toMatchObject({
      due: false,
      reasons: ['local time'],
      nextDueAt: new Date('2026-03-10T15:00:00.000Z'),
    });
    expect((await explainLead(db, c, { phoneNumber: '+18005550100' }, now)).nextDueAt).toEqual(new Date('2026-03-10T18:00:00.000Z'));
    // 08:00 in Los Angeles, then 08:00 in Honolulu (by then it is 14:00 in St. John's).
    expect(await worker(c, at('2026-03-10T14:59:59.999Z')).runOnce()).toMatchObject({ attempts: 0, deferred: 0 });
    expect(await worker(c, at('2026-03-10T15:00:00.001Z')).runOnce()).toMatchObject({ attempts: 2, deferred: 0 });
    expect(await worker(c, at('2026-03-10T17:59:00Z')).runOnce()).toMatchObject({ attempts: 0, deferred: 0 });
    expect(await worker(c, at('2026-03-10T18:00:00.001Z')).runOnce()).toMatchObject({ attempts: 1, deferred: 0 });
    expect(await statuses([la!, override!, unknownNanp!])).toEqual(['concluded', 'concluded', 'concluded']);
  });

  it('a prefetch lead whose number turns out to be outside its window is given back as it was, and waits for that zone', async () => {
    const crm = await startStub(null, () => ({ body: { phoneNumber: '+81312345678' } })); // Tokyo
    try {
      const c = await makeCampaign(db, { local_window: '08:00-21:00', predial_url: crm.url });
      const [id] = await seedLeads(db, c, [{ phoneNumber: null, externalId: 'crm-tokyo' }]);
      const before = await leadRow(db, id!);
      const now = at('2026-03-10T14:00:00Z'); // 14:00 UTC (the campaign's zone, so the claim takes it), 23:00 in Tokyo
      expect(await worker(c, now).runOnce()).toEqual({ attempts: 0, concluded: 0, deferred: 1, awaiting: 0 });
      expect(crm.requests).toHaveLength(1);
      const row = await leadRow(db, id!);
      expect({ ...row, local_zones: null }).toEqual(before);
      expect(await explainLead(db, c, { externalId: 'crm-tokyo' }, now)).toMatchObject({
        due: false,
        reasons: ['local time'],
        nextDueAt: new Date('2026-03-10T23:00:00.000Z'), // 08:00 in Tokyo
      });
      // Not asked again until Tokyo wakes up.
      expect(await worker(c, now + 60_000).runOnce()).toMatchObject({ attempts: 0, deferred: 0 });
      expect(crm.requests).toHaveLength(1);
      expect(await worker(c, at('2026-03-10T23:00:00.001Z')).runOnce()).toMatchObject({ attempts: 1, concluded: 1 });
      expect(crm.requests).toHaveLength(2);
    } finally {
      await crm.close();
    }
  });

  it('exhausts a lead at max attempts, one attempt per run, then recycle brings it back', async () => {
    const c = await makeCampaign(db, { max_attempts: 2, retry_delay_ms: 0, simulate_success: 0 });
    const [id] = await seedLeads(db, c, [{}]);
    const t = at('2026-03-10T14:00:00Z');
    expect(await worker(c, t).runOnce()).toMatchObject({ attempts: 1 });
    expect(await leadRow(db, id!)).toMatchObject({ status: 'attempting', attempts: 1 });
    expect(await worker(c, t + 1000).runOnce()).toMatchObject({ attempts: 1 });
    expect(await leadRow(db, id!)).toMatchObject({ status: 'exhausted', attempts: 2 });
    expect(await worker(c, t + 2000).runOnce()).toMatchObject({ attempts: 0 });
    expect(await explainLead(db, c, { phoneNumber: (await leadRow(db, id!))!.phone_number! }, t + 2000)).toMatchObject({
      due: false,
      reasons: ['attempts used up'],
      nextDueAt: null,
    });
    expect(await db.queue.recycle(c, 2, 2)).toBe(1);
    expect(await worker(c, t + 3000).runOnce()).toMatchObject({ attempts: 1 });
    expect(await leadRow(db, id!)).toMatchObject({ status: 'attempting', attempts: 3 });
    expect((await attemptRows(db, id!)).map((a) => [a.attempt, a.outcome])).toEqual([
      [1, 'no-answer'],
      [2, 'no-answer'],
      [3, 'no-answer'],
    ]);
  });

  it('never runs more calls at once than the campaign allows, and calls the highest priority first', async () => {
    const c = await makeCampaign(db, { concurrency: 3 });
    const ids = await seedLeads(
      db,
      c,
      Array.from({ length: 10 }, (_, i) => ({ priority: i * 10 })),
    );
    let running = 0;
    let most = 0;
    const order: number[] = [];
    const sleep = async () => {
      running++;
      most = Math.max(most, running);
      // long enough for the calls started together to overlap, each having written its attempt first
      await new Promise((r) => setTimeout(r, 100));
      running--;
    };
    const w = worker(c, at('2026-03-10T14:00:00Z'), { sleep });
    expect(await w.runOnce()).toMatchObject({ attempts: 10, concluded: 10 });
    expect(most).toBe(3);
    for (const id of ids) order.push((await attemptRows(db, id))[0]!.id);
    // Each batch of three starts before the next; within the run, priority 90 goes first.
    expect(order.indexOf(Math.min(...order))).toBeGreaterThanOrEqual(7);
  });

  it('fetches the number of a prefetch lead right before the call; a failed lookup is a failed attempt with its reason', async () => {
    const crm = await startStub('s3cret', (req) => {
      if (!req.signed) return { status: 401, body: {} };
      if (req.body.externalId === 'crm-ok') return { body: { phoneNumber: '+442079460555' } };
      if (req.body.externalId === 'crm-slow') return { body: { phoneNumber: '+442079460556' }, delayMs: 2000 };
      if (req.body.externalId === 'crm-empty') return { body: '' };
      return { body: { phoneNumber: 'call me' } };
    });
    try {
      const c = await makeCampaign(db, { predial_url: crm.url, predial_secret: 's3cret' });
      const [good, bad, slow, empty] = await seedLeads(db, c, [
        { phoneNumber: null, externalId: 'crm-ok' },
        { phoneNumber: null, externalId: 'crm-bad' },
        { phoneNumber: null, externalId: 'crm-slow' },
        { phoneNumber: null, externalId: 'crm-empty' },
      ]);
      const w = worker(c, at('2026-03-10T14:00:00Z'), { predialTimeoutMs: 300 });
      expect(await w.runOnce()).toMatchObject({ attempts: 4, concluded: 1 });
      expect(crm.requests.map((r) => r.body.externalId).sort()).toEqual(['crm-bad', 'crm-empty', 'crm-ok', 'crm-slow']);
      expect(crm.requests.every((r) => r.signed)).toBe(true);
      expect((await attemptRows(db, slow!))[0]).toMatchObject({
        success: 0,
        outcome: 'predial-failed',
        reason: 'predial: no answer within 300 ms',
      });
      expect((await attemptRows(db, empty!))[0]).toMatchObject({ success: 0, outcome: 'predial-failed', reason: 'predial: empty answer' });
      expect(await attemptRows(db, good!)).toEqual([
        expect.objectContaining({ success: 1, outcome: 'answered', phone_number: '+442079460555' }),
      ]);
      expect(await attemptRows(db, bad!)).toEqual([
        expect.objectContaining({
          success: 0,
          outcome: 'predial-failed',
          phone_number: null,
          reason: 'predial: phoneNumber is not E.164 (a + and 2 to 15 digits, the first not 0)',
        }),
      ]);
      expect(await leadRow(db, bad!)).toMatchObject({ status: 'attempting', attempts: 1 });
    } finally {
      await crm.close();
    }
  });

  it('a lead deleted during its call is neither resurrected nor a crash', async () => {
    const c = await makeCampaign(db);
    const [id, other] = await seedLeads(db, c, [{}, {}]);
    const sleep = async () => {
      await db.kysely.deleteFrom('leads').where('id', '=', id!).execute();
    };
    expect(await worker(c, at('2026-03-10T14:00:00Z'), { sleep }).runOnce()).toMatchObject({ attempts: 1 });
    expect(await leadRow(db, id!)).toBeUndefined();
    expect((await leadRow(db, other!))!.status).toBe('concluded');
  });

  it('stop() lets calls finish within the grace period, then hangs up the rest: each is an attempt, never dialled again under its id', async () => {
    const c = await makeCampaign(db, { concurrency: 2 });
    const [quick, slow] = await seedLeads(db, c, [{ priority: 2 }, { priority: 1 }]);
    let calls = 0;
    const w = new Dialer({
      store: db,
      logger: silent,
      campaignIds: [c],
      random: () => 0,
      simulateDurationMs: [0, 0],
      sleep: (_ms, signal) =>
        new Promise<void>((resolve) => {
          // the first call ends soon; the second would take an hour
          const t = setTimeout(resolve, calls++ === 0 ? 50 : 3_600_000);
          signal.addEventListener('abort', () => {
            clearTimeout(t);
            resolve();
          });
        }),
    });
    const running = w.run();
    while (w.callsInFlight < 2) await new Promise((r) => setTimeout(r, 5));
    await w.stop(300);
    await running;
    // The two calls write their attempts at once, so either may be the one that sleeps first (the quick one).
    const [done, cut] = (await leadRow(db, quick!))!.status === 'concluded' ? [quick!, slow!] : [slow!, quick!];
    expect(await leadRow(db, done)).toMatchObject({ status: 'concluded', attempts: 1 });
    // the other call was placed and cut short: recorded as a canceled attempt, the lead waiting its retry delay
    expect(await leadRow(db, cut)).toMatchObject({ status: 'attempting', attempts: 1, claimed_by: null });
    expect((await attemptRows(db, cut)).map((a) => [a.state, a.outcome])).toEqual([['closed', 'canceled']]);
  });

  it('stop() during a claim: the leads it brought back are released, and no call starts after stop() returns', async () => {
    const c = await makeCampaign(db, { concurrency: 5 });
    const ids = await seedLeads(db, c, [{}, {}, {}]);
    let stopped: Promise<void> | undefined;
    let stopReturned = false;
    let calls = 0;
    let reads = 0;
    const w: Dialer = new Dialer({
      store: db,
      logger: silent,
      campaignIds: [c],
      random: () => 0,
      sleep: async () => {
        calls++;
      },
      // fill() reads the clock for the calling hours, then for the claim
      // statement itself: stop at that second reading, mid-claim.
      now: () => {
        if (!stopped && new Error().stack!.includes('Dialer.fill') && ++reads === 2) {
          stopped = w.stop(5000).then(() => {
            stopReturned = true;
          });
        }
        return Date.now();
      },
    });
    const running = w.run();
    while (!stopReturned) await new Promise((r) => setTimeout(r, 5));
    const callsWhenStopped = calls;
    await running;
    expect(calls).toBe(callsWhenStopped);
    expect(calls).toBe(0);
    for (const id of ids) expect(await leadRow(db, id)).toMatchObject({ status: 'raw', claimed_by: null, attempts: 0 });
  });

  it('claims stay renewed while calls finish during the grace period', async () => {
    const c = await makeCampaign(db);
    const [id] = await seedLeads(db, c, [{}]);
    const w = new Dialer({
      store: db,
      logger: silent,
      campaignIds: [c],
      random: () => 0,
      claimTimeoutMs: 300,
      sleep: () => new Promise((r) => setTimeout(r, 1200)),
    });
    const running = w.run();
    while (w.callsInFlight < 1) await new Promise((r) => setTimeout(r, 5));
    const stopped = w.stop(5000);
    await new Promise((r) => setTimeout(r, 700));
    expect(await claimDue(db, { campaignId: c, maxAttempts: 3, workerId: 'other', limit: 5, now: Date.now(), leaseMs: 1000 })).toEqual([]);
    await stopped;
    await running;
    expect(await leadRow(db, id!)).toMatchObject({ status: 'concluded', attempts: 1 });
  });

  it('run() keeps polling: leads created later are called, and campaign updates apply', async () => {
    const c = await makeCampaign(db, { hours: 'never' });
    const w = new Dialer({ store: db, logger: silent, campaignIds: [c], random: () => 0, pollIntervalMs: 20, campaignRefreshMs: 50 });
    const running = w.run();
    try {
      const [id] = await seedLeads(db, c, [{}]);
      await new Promise((r) => setTimeout(r, 100));
      expect((await leadRow(db, id!))!.status).toBe('raw');
      await updateCampaign(db, c, { hours: 'mon-sun 00:00-24:00' });
      const deadline = Date.now() + 10_000;
      while ((await leadRow(db, id!))!.status !== 'concluded' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect((await leadRow(db, id!))!.status).toBe('concluded');
    } finally {
      await w.stop(1000);
      await running;
    }
  });
});
