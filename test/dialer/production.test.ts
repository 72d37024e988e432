/**
 * The dialer in production, in-process on both stores: a lead deleted while
 * its predial lookup runs is not called; calls taken for later (202) hold
 * their slot until their outcome is reported, once; the call timeout closes
 * them as unknown; calls never placed spend no attempt and pause the campaign
 * after 20 in a row; retry delays by outcome; a lost claim hangs up its call;
 * recovery closes the attempts of dead workers.
 */
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resumeCampaign, updateCampaign } from '../../src/campaigns/service.js';
import { explainLead } from '../../src/dialer/explain.js';
import { recoverStale } from '../../src/dialer/recovery.js';
import { Dialer, type DialerOptions } from '../../src/dialer/worker.js';
import type { Store } from '../../src/store/index.js';
import { availableStores } from '../helpers/db.js';
import { type Fixture, makeFixture } from '../helpers/fixture.js';
import { closedPortUrl } from '../providers/closed-port.js';
import { startStub } from './http-stub.js';
import { attemptRows, expectHeldBackNotPlaced, leadRow, makeCampaign, seedLeads } from './support.js';

const silent = pino({ level: 'silent' });

describe.each(await availableStores())('the dialer in production on %s', (kind) => {
  let f: Fixture;
  let db: Store;
  beforeAll(async () => {
    f = await makeFixture(kind);
    db = f.db;
  });
  afterAll(() => f?.close());

  const worker = (campaignId: string, o: Partial<DialerOptions> = {}) =>
    new Dialer({ store: db, logger: silent, campaignIds: [campaignId], random: () => 0, ...o });
  const companyCampaign = (settings: Parameters<typeof updateCampaign>[2]) => makeCampaign(db, settings);

  it('does not call a lead deleted while its predial lookup runs: no call, no attempt', async () => {
    const phone = await startStub(null, () => ({ body: { success: true, outcome: 'answered' } }));
    let campaignId = '';
    const crm = await startStub(null, async (req) => {
      // the client deletes the lead while leadline asks its CRM for the number
      await db.kysely.deleteFrom('leads').where('external_id', '=', req.body.externalId).where('campaign_id', '=', campaignId).execute();
      return { body: { phoneNumber: '+14155550999' } };
    });
    try {
      campaignId = await companyCampaign({ predial_url: crm.url, provider: 'webhook', provider_url: phone.url });
      const [id] = await seedLeads(db, campaignId, [{ phoneNumber: null, externalId: 'deleted-during-predial' }]);
      expect(await worker(campaignId).runOnce()).toMatchObject({ attempts: 0 });
      expect(crm.requests).toHaveLength(1);
      expect(phone.requests).toHaveLength(0);
      expect(await attemptRows(db, id!)).toEqual([]);
    } finally {
      await phone.close();
      await crm.close();
    }
  });

  it('a call taken for later holds its slot until its outcome is reported, exactly once, by a key of its company', async () => {
    const phone = await startStub(null, (req) => ({ status: 202, body: { accepted: true, callId: `call-${req.body.leadId}` } }));
    try {
      const campaignId = await companyCampaign({ provider: 'webhook', provider_url: phone.url, concurrency: 1 });
      // a campaign of company A, so that the fixture's keys can report
      await db.kysely.updateTable('campaigns').set({ company_id: f.ids.companyA }).where('id', '=', campaignId).execute();
      const [first, second] = await seedLeads(db, campaignId, [{ priority: 9 }, { priority: 1 }]);
      await worker(campaignId).runOnce();
      expect(phone.requests).toHaveLength(1);
      const [attempt] = await attemptRows(db, first!);
      expect(attempt).toMatchObject({ state: 'accepted', provider_call_id: `call-${first}`, outcome: null });
      expect(phone.requests[0]!.headers['idempotency-key']).toBe(attempt!.attempt_id);
      // its slot is held: the campaign's one call is the one awaited
      await worker(campaignId).runOnce();
      expect(phone.requests).toHaveLength(1);
      expect((await leadRow(db, second!))!.status).toBe('raw');

      const report = (body: unknown, key = f.keys.writeA) =>
        f.request('POST', `/api/v1/attempts/${attempt!.attempt_id}/outcome`, { body, key });
      expect((await report({ success: true, outcome: 'answered' }, f.keys.writeB)).status).toBe(404);
      expect((await report({ success: true, outcome: 'answered' }, f.keys.readA)).status).toBe(403);
      expect((await f.request('POST', '/api/v1/attempts/at_nope/outcome', { body: { success: true, outcome: 'answered' } })).body).toEqual({
        success: false,
        data: null,
        error: 'Attempt not found',
      });
      const done = await report({ success: true, outcome: 'answered', reason: 'booked a demo', durationSeconds: 95 });
      expect(done.status).toBe(200);
      expect(done.body.data).toEqual({ attemptId: attempt!.attempt_id, recorded: true, leadStatus: 'concluded' });
      const repeat = await report({ success: false, outcome: 'no-answer' });
      expect([repeat.status, repeat.body.error]).toEqual([409, 'Outcome already recorded for this attempt']);
      expect(await attemptRows(db, first!)).toMatchObject([
        { state: 'closed', closed_by: 'report', outcome: 'answered', reason: 'booked a demo', duration_seconds: 95 },
      ]);
      expect(await leadRow(db, first!)).toMatchObject({ status: 'concluded', attempts: 1, claimed_by: null });
      // the slot is free again
      await worker(campaignId).runOnce();
      expect(phone.requests.map((r) => r.body.leadId)).toEqual([first, second]);
    } finally {
      await phone.close();
    }
  });

  it('a call taken for later and reported not-placed spends no attempt, as a platform webhook or a refusal at dial time does', async () => {
    const phone = await startStub(null, (req) => ({ status: 202, body: { accepted: true, callId: `call-${req.body.leadId}` } }));
    try {
      const campaignId = await companyCampaign({ provider: 'webhook', provider_url: phone.url, max_attempts: 1 });
      await db.kysely.updateTable('campaigns').set({ company_id: f.ids.companyA }).where('id', '=', campaignId).execute();
      const [id] = await seedLeads(db, campaignId, [{}]);
      await worker(campaignId).runOnce();
      const [attempt] = await attemptRows(db, id!);
      const reportedAt = f.clock.now; // the app's clock, which closes the attempt
      const done = await f.request('POST', `/api/v1/attempts/${attempt!.attempt_id}/outcome`, {
        body: { success: false, outcome: 'not-placed', reason: 'the platform had no free line' },
        key: f.keys.writeA,
      });
      expect(done.body.data).toEqual({ attemptId: attempt!.attempt_id, recorded: true, leadStatus: 'raw' });
      expect(await attemptRows(db, id!)).toMatchObject([{ state: 'closed', closed_by: 'report', outcome: 'not-placed', counts: 0 }]);
      // its one attempt is still to come (counted, the lead would be exhausted uncalled), after the backoff
      await expectHeldBackNotPlaced(db, id!, reportedAt);
    } finally {
      await phone.close();
    }
  });

  it('a call whose outcome never comes closes as unknown after the call timeout: it counts, and the next attempt has a new id', async () => {
    const phone = await startStub(null, () => ({ status: 202, body: { accepted: true } }));
    try {
      const campaignId = await companyCampaign({
        provider: 'webhook',
        provider_url: phone.url,
        call_timeout_ms: 10_000,
        retry_delay_ms: 0,
      });
      const [id] = await seedLeads(db, campaignId, [{}]);
      const t0 = Date.now();
      await worker(campaignId, { now: () => t0 }).runOnce();
      await recoverStale(db, t0 + 9_999, silent);
      expect(await attemptRows(db, id!)).toMatchObject([{ state: 'accepted' }]);
      await recoverStale(db, t0 + 10_000, silent);
      expect(await attemptRows(db, id!)).toMatchObject([{ state: 'closed', closed_by: 'timeout', outcome: 'unknown', counts: 1 }]);
      expect(await leadRow(db, id!)).toMatchObject({ status: 'attempting', attempts: 1, claimed_by: null });
      await worker(campaignId, { now: () => t0 + 20_000 }).runOnce();
      const rows = await attemptRows(db, id!);
      expect(rows.map((r) => r.attempt)).toEqual([1, 2]);
      expect(new Set(phone.requests.map((r) => r.body.attemptId)).size).toBe(2);
      expect(phone.requests.map((r) => r.body.attemptId)).toEqual(rows.map((r) => r.attempt_id));
    } finally {
      await phone.close();
    }
  });

  it('a call that could not be placed spends no attempt; 20 in a row pause the campaign, visibly, until it is resumed', async () => {
    const campaignId = await companyCampaign({ provider: 'webhook', provider_url: `${await closedPortUrl()}/down`, concurrency: 25 });
    const ids = await seedLeads(
      db,
      campaignId,
      Array.from({ length: 25 }, () => ({})),
    );
    const t0 = Date.now();
    expect(await worker(campaignId, { now: () => t0 }).runOnce()).toMatchObject({ attempts: 0 });
    const row = await leadRow(db, ids[0]!);
    // back to raw, never called, due again after a backoff
    expect(row).toMatchObject({ status: 'raw', attempts: 0, claimed_by: null });
    expect(Date.parse(row!.next_attempt_at!)).toBeGreaterThan(t0);
    expect(await attemptRows(db, ids[0]!)).toMatchObject([{ state: 'closed', outcome: 'not-placed', counts: 0 }]);
    const campaign = (await db.campaigns.byId(campaignId))!;
    expect(campaign.not_placed_streak).toBeGreaterThanOrEqual(20);
    expect(campaign.paused_reason).toMatch(/^\d+ calls in a row could not be placed; the last: webhook: request failed: ECONNREFUSED/);
    const explained = await explainLead(db, campaignId, { phoneNumber: row!.phone_number! }, t0 + 3_600_000);
    expect(explained).toMatchObject({ due: false, reasons: ['campaign paused'], nextDueAt: null });
    expect(explained.details['campaign paused']).toBe(campaign.paused_reason);
    // paused: nothing is claimed, even when due
    await db.kysely.updateTable('leads').set({ next_attempt_at: null }).where('campaign_id', '=', campaignId).execute();
    expect(await worker(campaignId, { now: () => t0 + 1 }).runOnce()).toEqual({ attempts: 0, concluded: 0, deferred: 0, awaiting: 0 });
    expect((await attemptRows(db, ids[24]!)).length + (await attemptRows(db, ids[0]!)).length).toBeLessThanOrEqual(2);
    expect(await resumeCampaign(db, campaignId)).toBe(true);
    expect(await db.campaigns.byId(campaignId)).toMatchObject({ paused_at: null, paused_reason: null, not_placed_streak: 0 });
    expect(await resumeCampaign(db, campaignId)).toBe(false);
  });

  it('waits the retry delay of the outcome: busy=10m, others the default', async () => {
    const campaignId = await companyCampaign({
      simulate_success: 0,
      simulate_failures: 'busy=1',
      retry_delay_ms: 30 * 60_000,
      retry_delays: 'busy=10m',
    });
    const [id] = await seedLeads(db, campaignId, [{}]);
    const t0 = Date.parse('2026-03-10T14:00:00Z');
    await worker(campaignId, { now: () => t0 }).runOnce();
    expect((await leadRow(db, id!))!.next_attempt_at).toBe(new Date(t0 + 10 * 60_000).toISOString());
    await updateCampaign(db, campaignId, { simulate_failures: 'no-answer=1' });
    await worker(campaignId, { now: () => t0 + 11 * 60_000 }).runOnce();
    expect((await leadRow(db, id!))!.next_attempt_at).toBe(new Date(t0 + 41 * 60_000).toISOString());
  });

  it('a worker that loses the claim of a call in flight hangs it up, and the attempt is still recorded', async () => {
    const campaignId = await companyCampaign({});
    const [id] = await seedLeads(db, campaignId, [{}]);
    const w = worker(campaignId, {
      claimTimeoutMs: 300,
      sleep: (_ms, signal) =>
        new Promise<void>((resolve) => {
          const t = setTimeout(resolve, 10_000);
          signal.addEventListener('abort', () => {
            clearTimeout(t);
            resolve();
          });
        }),
    });
    const running = w.runOnce();
    // the call is placed once its attempt is written
    while ((await attemptRows(db, id!)).length === 0) await new Promise((r) => setTimeout(r, 5));
    // another dialer took the lead (as recovery and a claim would after a stall)
    await db.kysely.updateTable('leads').set({ claimed_by: 'another-worker' }).where('id', '=', id!).execute();
    await running;
    expect(await attemptRows(db, id!)).toMatchObject([{ state: 'closed', outcome: 'canceled', closed_by: 'dialer' }]);
    // the lead is the other holder's: this worker did not move it
    expect(await leadRow(db, id!)).toMatchObject({ claimed_by: 'another-worker', attempts: 0 });
  });

  it('recovery closes the attempt of a worker that died mid-call as unknown, and ends a lapsed claim with no attempt', async () => {
    const campaignId = await companyCampaign({ retry_delay_ms: 0 });
    const [called, claimedOnly] = await seedLeads(db, campaignId, [{ priority: 2 }, { priority: 1 }]);
    const t0 = Date.now();
    const leads = await db.queue.claim({ campaignId, maxAttempts: 3, workerId: 'dead', limit: 2, now: t0, leaseMs: 1000, openZones: null });
    const lead = leads.find((l) => l.id === called)!;
    await db.queue.open([{ attemptId: 'at_dead_1', lead, phoneNumber: lead.phoneNumber, startedAt: t0, deadlineAt: t0 + 3_600_000 }], t0);
    await recoverStale(db, t0 + 999, silent);
    expect(await attemptRows(db, called!)).toMatchObject([{ state: 'open' }]);
    expect(await leadRow(db, claimedOnly!)).toMatchObject({ claimed_by: 'dead' });
    await recoverStale(db, t0 + 1001, silent);
    expect(await attemptRows(db, called!)).toMatchObject([
      { attempt_id: 'at_dead_1', state: 'closed', closed_by: 'recovery', outcome: 'unknown', counts: 1 },
    ]);
    expect(await leadRow(db, called!)).toMatchObject({ status: 'attempting', attempts: 1, claimed_by: null });
    expect(await leadRow(db, claimedOnly!)).toMatchObject({ status: 'raw', attempts: 0, claimed_by: null, next_attempt_at: null });
    expect(await attemptRows(db, claimedOnly!)).toEqual([]);
  });
});
