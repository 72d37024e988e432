/**
 * The do-not-call list in the dialer, on a real database: a listed lead is
 * not due (the claim's anti-join) and due again once removed; a number listed
 * while its lead is held is not called (the check right before dialling, for
 * a number known at the claim and for a prefetch lead's number); explain
 * names the list; a do-not-call outcome lists the number (source call) and
 * concludes the lead, whatever its `success` flag; one reported after the
 * attempt was closed still lists it. docs/compliance.md "Do-not-call list".
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { closingForPending, planAttempt, recordAttempt } from '../../src/dialer/attempts.js';
import { type CallDeps, dialLead } from '../../src/dialer/call.js';
import { loadDialerCampaigns } from '../../src/dialer/campaign.js';
import { claimDue } from '../../src/dialer/claim.js';
import { explainLead } from '../../src/dialer/explain.js';
import { reportOutcome } from '../../src/dialer/outcomes.js';
import { Dialer } from '../../src/dialer/worker.js';
import type { Store } from '../../src/store/index.js';
import { availableStores, useStore } from '../helpers/db.js';
import { startStub } from '../dialer/http-stub.js';
import { attemptRows, leadRow, makeCampaign, seedLeads } from '../dialer/support.js';

const silent = pino({ level: 'silent' });
const T0 = Date.parse('2026-03-10T14:00:00.000Z');
const H = 3_600_000;

describe.each(await availableStores())('the do-not-call list in the dialer on %s', (kind) => {
  let db: Store;
  useStore(kind, (opened) => {
    db = opened;
  });

  const worker = (campaignId: string) =>
    new Dialer({ store: db, logger: silent, campaignIds: [campaignId], now: () => T0, random: () => 0, simulateDurationMs: [0, 0] });
  const companyOf = async (campaignId: string) => (await db.campaigns.byId(campaignId))!.company_id;
  const list = async (campaignId: string, numbers: string[]) => {
    const companyId = await companyOf(campaignId);
    return db.transaction((tx) => tx.dnc.add(companyId, numbers, { source: 'api', reason: 'asked by letter', now: T0 }));
  };

  it('a listed lead is not claimed, explain says why, and once removed it is called', async () => {
    const c = await makeCampaign(db);
    const [listed, free] = await seedLeads(db, c, [{ phoneNumber: '+14155551001' }, { phoneNumber: '+14155551002' }]);
    await list(c, ['+14155551001']);
    expect(await db.queue.nextDue(c, null)).toBe(0); // the free lead is due
    expect(await worker(c).runOnce()).toMatchObject({ attempts: 1 });
    expect((await leadRow(db, free!))!.status).toBe('concluded');
    expect(await leadRow(db, listed!)).toMatchObject({ status: 'raw', claimed_by: null, attempts: 0 });
    expect(await attemptRows(db, listed!)).toEqual([]);
    // nothing else due: the idle dialer's one statement agrees with the claim
    expect(await db.queue.nextDue(c, null)).toBeNull();

    const why = await explainLead(db, c, { phoneNumber: '+14155551001' }, T0);
    expect(why.due).toBe(false);
    expect(why.reasons).toEqual(["on the company's do-not-call list"]);
    expect(why.details["on the company's do-not-call list"]).toBe(`added ${new Date(T0).toISOString()}, source api`);
    expect(why.nextDueAt).toBeNull();

    expect(await db.dnc.remove(await companyOf(c), ['+14155551001'])).toEqual(['+14155551001']);
    expect((await explainLead(db, c, { phoneNumber: '+14155551001' }, T0)).due).toBe(true);
    expect(await worker(c).runOnce()).toMatchObject({ attempts: 1 });
    expect((await leadRow(db, listed!))!.status).toBe('concluded');
  });

  it("one company's list does not touch another company's leads", async () => {
    const a = await makeCampaign(db);
    const b = await makeCampaign(db);
    const [la] = await seedLeads(db, a, [{ phoneNumber: '+14155551101' }]);
    const [lb] = await seedLeads(db, b, [{ phoneNumber: '+14155551101' }]);
    await list(a, ['+14155551101']);
    expect(await worker(a).runOnce()).toMatchObject({ attempts: 0 });
    expect(await worker(b).runOnce()).toMatchObject({ attempts: 1 });
    expect((await leadRow(db, la!))!.status).toBe('raw');
    expect((await leadRow(db, lb!))!.status).toBe('concluded');
  });

  it('a number listed while its lead is claimed is not called: no attempt, the lead given back, and not due while listed', async () => {
    const c = await makeCampaign(db);
    const [id] = await seedLeads(db, c, [{ phoneNumber: '+14155551201' }]);
    const [lead] = await claimDue(db, { campaignId: c, maxAttempts: 3, workerId: 'w1', limit: 1, now: T0, leaseMs: 60_000 });
    expect(lead!.id).toBe(id);
    await list(c, ['+14155551201']); // listed while held
    const [campaign] = await loadDialerCampaigns(db, [c], { random: () => 0, simulateDurationMs: [0, 0] }, () => {});
    let placed = 0;
    const deps: CallDeps = {
      store: db,
      now: () => T0,
      predialTimeoutMs: 1000,
      open: async (o) => (await db.queue.open([o], T0))[0]!,
      close: async (x) => (await db.queue.close([x], 'dialer', T0))[0]!,
      notPlaced: async () => 0,
      placed: async () => {
        placed++;
      },
    };
    expect(await dialLead(deps, campaign!, lead!, new AbortController().signal)).toEqual({ kind: 'skipped', why: 'do-not-call' });
    expect(placed).toBe(0);
    expect(await attemptRows(db, id!)).toEqual([]);
    expect(await leadRow(db, id!)).toMatchObject({ status: 'raw', claimed_by: null, attempts: 0 });
    expect(await claimDue(db, { campaignId: c, maxAttempts: 3, workerId: 'w1', limit: 1, now: T0, leaseMs: 60_000 })).toEqual([]);
  });

  it('a prefetch lead whose number, fetched right before the call, was listed meanwhile is not called', async () => {
    let companyId = '';
    const crm = await startStub(null, async () => {
      // the number is listed while the dialer holds the lead and waits for its predial answer
      await db.transaction((tx) => tx.dnc.add(companyId, ['+442079461301'], { source: 'cli', reason: null, now: T0 }));
      return { body: { phoneNumber: '+442079461301' } };
    });
    try {
      const c = await makeCampaign(db, { predial_url: crm.url });
      companyId = await companyOf(c);
      const [id] = await seedLeads(db, c, [{ phoneNumber: null, externalId: 'crm-listed' }]);
      expect(await worker(c).runOnce()).toMatchObject({ attempts: 0 });
      expect(crm.requests).toHaveLength(1);
      expect(await attemptRows(db, id!)).toEqual([]);
      // its number is kept nowhere, so it waits the campaign's retry delay before the next lookup
      const row = await leadRow(db, id!);
      expect(row).toMatchObject({ status: 'raw', claimed_by: null, attempts: 0 });
      const retryMs = Number((await db.campaigns.byId(c))!.retry_delay_ms);
      expect(row!.next_attempt_at).toBe(new Date(T0 + retryMs).toISOString());
    } finally {
      await crm.close();
    }
  });

  it('a do-not-call outcome lists the number with source call, in the same transaction as the close, and concludes the lead', async () => {
    const c = await makeCampaign(db);
    const [id] = await seedLeads(db, c, [{ phoneNumber: '+14155551401' }]);
    const [lead] = await claimDue(db, { campaignId: c, maxAttempts: 3, workerId: 'w1', limit: 1, now: T0, leaseMs: 60_000 });
    const before = await db.events.lastId();
    const r = await recordAttempt(db, lead!, {
      success: true,
      outcome: 'do-not-call',
      phoneNumber: '+14155551401',
      reason: 'please stop calling',
      startedAt: T0,
      finishedAt: T0 + 1000,
      retryDelayMs: 60_000,
    });
    expect(r).toMatchObject({ result: 'recorded', status: 'concluded' });
    expect(await db.dnc.get(await companyOf(c), '+14155551401')).toEqual({
      phoneNumber: '+14155551401',
      addedAt: T0 + 1000,
      source: 'call',
      reason: 'please stop calling',
    });
    const events = await db.events.after(before, ['dnc.added'], 10);
    expect(events.map((e) => [e.company_id, e.campaign_id, JSON.parse(e.items)])).toEqual([
      [await companyOf(c), null, [{ phoneNumber: '+14155551401', source: 'call', reason: 'please stop calling' }]],
    ]);
    expect((await leadRow(db, id!))!.status).toBe('concluded');
    // a second do-not-call outcome for the same number keeps the first entry
    const [other] = await seedLeads(db, c, [{ phoneNumber: '+14155551402' }]);
    const [held] = await claimDue(db, { campaignId: c, maxAttempts: 3, workerId: 'w1', limit: 1, now: T0, leaseMs: 60_000 });
    expect(held!.id).toBe(other);
    const closing = planAttempt(held!, {
      success: true,
      outcome: 'do-not-call',
      phoneNumber: '+14155551401',
      reason: null,
      startedAt: T0 + 5000,
      finishedAt: T0 + 6000,
      retryDelayMs: 60_000,
    });
    const opening = { attemptId: closing.attemptId, lead: held!, phoneNumber: '+14155551402', startedAt: T0 + 5000, deadlineAt: T0 + 9000 };
    expect(await db.queue.open([opening], T0 + 5000)).toEqual(['opened']);
    await db.queue.close([closing], 'report', T0 + 6000);
    expect((await db.dnc.get(await companyOf(c), '+14155551402'))?.source).toBe('call');
  });

  /** a call to `phoneNumber` placed and accepted by its provider: its outcome comes later */
  const acceptedCall = async (phoneNumber: string) => {
    const campaignId = await makeCampaign(db, { max_attempts: 3, retry_delay_ms: 0 });
    const companyId = await companyOf(campaignId);
    const [leadId] = await seedLeads(db, campaignId, [{ phoneNumber }]);
    const [lead] = await claimDue(db, { campaignId, maxAttempts: 3, workerId: 'w1', limit: 1, now: T0, leaseMs: 60_000 });
    const attemptId = `at_dnc_${phoneNumber.slice(-4)}`;
    expect(await db.queue.open([{ attemptId, lead: lead!, phoneNumber, startedAt: T0, deadlineAt: T0 + H }], T0)).toEqual(['opened']);
    expect(await db.queue.accept(attemptId, { providerCallId: null, deadlineAt: T0 + H })).toBe(true);
    return { campaignId, companyId, leadId: leadId!, attemptId };
  };

  it('a do-not-call outcome reported with success false still concludes the lead', async () => {
    const { companyId, leadId, attemptId } = await acceptedCall('+14155557001');
    // a webhook receiver or an integrator reports the person's opt-out as a call that did not "succeed"
    const r = await reportOutcome(db, { companyId, campaignId: null }, attemptId, { success: false, outcome: 'do-not-call' }, T0 + 60_000);
    expect(r).toEqual({ attemptId, recorded: true, leadStatus: 'concluded' });
    expect((await db.dnc.get(companyId, '+14155557001'))?.source).toBe('call');
    expect(await leadRow(db, leadId)).toMatchObject({ status: 'concluded', next_attempt_at: null });
  });

  it('a do-not-call outcome reported after the call timeout closed the attempt still lists the number; the answer stays 404', async () => {
    const phoneNumber = '+14155557002';
    const { campaignId, companyId, leadId, attemptId } = await acceptedCall(phoneNumber);
    // the call timeout closes the attempt as unknown (what recovery does); the lead is due again
    const unknown = closingForPending((await db.queue.pending(attemptId))!, {
      success: false,
      outcome: 'unknown',
      reason: 'no outcome before the call timeout',
      durationSeconds: null,
      counts: true,
      finishedAt: T0 + H,
    });
    await db.queue.close([unknown], 'timeout', T0 + H);
    expect((await leadRow(db, leadId))!.status).toBe('attempting');
    const late = (p: { companyId: string; campaignId: string | null }) =>
      reportOutcome(db, p, attemptId, { success: true, outcome: 'do-not-call', reason: 'stop calling me' }, T0 + H + 5000).catch(
        (e: Error) => e,
      );
    // keys that may not reach the attempt learn nothing and list nothing
    const other = await makeCampaign(db);
    expect(await late({ companyId: await companyOf(other), campaignId: null })).toMatchObject({ message: 'Attempt not found' });
    expect(await late({ companyId, campaignId: other })).toMatchObject({ message: 'Attempt not found' });
    expect(await db.dnc.get(companyId, phoneNumber)).toBeUndefined();
    // the documented answer for a closed attempt, but the opt-out is not lost
    expect(await late({ companyId, campaignId })).toMatchObject({ message: 'Attempt not found' });
    expect(await db.dnc.get(companyId, phoneNumber)).toEqual({
      phoneNumber,
      addedAt: T0 + H + 5000,
      source: 'call',
      reason: 'stop calling me',
    });
    // the first outcome stands and the lead keeps its status, but it is never called again
    expect(await attemptRows(db, leadId)).toMatchObject([{ closed_by: 'timeout', outcome: 'unknown' }]);
    expect((await leadRow(db, leadId))!.status).toBe('attempting');
    expect(await claimDue(db, { campaignId, maxAttempts: 3, workerId: 'w2', limit: 1, now: T0 + 2 * H, leaseMs: 60_000 })).toEqual([]);
  });

  it('a late do-not-call after an earlier report is still a 409, and lists the number', async () => {
    const phoneNumber = '+14155557003';
    const { companyId, leadId, attemptId } = await acceptedCall(phoneNumber);
    const p = { companyId, campaignId: null };
    await reportOutcome(db, p, attemptId, { success: false, outcome: 'no-answer' }, T0 + 1000);
    const late = await reportOutcome(db, p, attemptId, { success: false, outcome: 'do-not-call' }, T0 + 2000).catch((e: Error) => e);
    expect(late).toMatchObject({ message: 'Outcome already recorded for this attempt' });
    expect(await db.dnc.get(companyId, phoneNumber)).toMatchObject({
      source: 'call',
      reason: 'opted out (reported after the attempt was closed)',
    });
    expect((await leadRow(db, leadId))!.status).toBe('attempting');
  });
});
