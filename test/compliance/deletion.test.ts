/**
 * Deleting a lead deletes its number (docs/compliance.md "Deleting data"):
 * after a delete through the API (single and bulk) or the dashboard, the
 * number is nowhere in the database (every row of every table read back)
 * but on the do-not-call list; and the per-number call caps still count the
 * calls placed to it, so a deleted and re-added lead is still at its cap.
 */
import { sql } from 'kysely';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCampaign } from '../../src/campaigns/service.js';
import { closingForPending } from '../../src/dialer/attempts.js';
import { claimDue } from '../../src/dialer/claim.js';
import { explainLead } from '../../src/dialer/explain.js';
import { Dialer } from '../../src/dialer/worker.js';
import { ok } from '../api/support.js';
import { attemptRows } from '../dialer/support.js';
import { availableStores } from '../helpers/db.js';
import { whereStored } from '../helpers/dump.js';
import { type Fixture, makeFixture } from '../helpers/fixture.js';
import { type Browser, signedInUser } from '../web/support.js';

const silent = pino({ level: 'silent' });
const H = 3_600_000;
const CAP = "at the company's per-number call cap";

describe.each(await availableStores())('deleting a lead on %s', (kind) => {
  let f: Fixture;
  let browser: Browser;
  let n = 0;
  beforeAll(async () => {
    f = await makeFixture(kind);
    await f.db.companies.setCallCaps(f.ids.companyA, '1/1d');
    browser = await signedInUser(f.app, f.db, f.ids.companyA, 'delete@a.test');
  });
  afterAll(() => f?.close());

  const campaign = async () =>
    (
      await createCampaign(f.db, {
        companyId: f.ids.companyA,
        name: 'Deleting',
        hours: 'mon-sun 00:00-24:00',
        local_window: '00:00-24:00',
        regional_rules: 'off',
      })
    ).campaignId;
  const dial = (campaignId: string, now: number) =>
    new Dialer({
      store: f.db,
      logger: silent,
      campaignIds: [campaignId],
      now: () => now,
      random: () => 0,
      simulateDurationMs: [0, 0],
    }).runOnce();
  const addLead = async (campaignId: string, phoneNumber: string): Promise<string> =>
    ok(await f.request('POST', '/api/v1/leads', { body: { campaignId, phoneNumber } }), 201).leadId;

  /** a lead called once, its attempt's reason quoting the number (as a platform's may) */
  async function calledLead(campaignId: string, phoneNumber: string, now: number): Promise<string> {
    const id = await addLead(campaignId, phoneNumber);
    expect(await dial(campaignId, now)).toMatchObject({ attempts: 1 });
    await f.db.kysely
      .updateTable('attempts')
      .set({ reason: `voicemail of ${phoneNumber}` })
      .where('lead_id', '=', id)
      .execute();
    // what is stored before the delete: the dump finds the number where it is
    expect((await whereStored(f.db, phoneNumber)).map((x) => x.at).sort()).toEqual([
      'attempts.phone_number',
      'attempts.reason',
      'leads.phone_number',
    ]);
    return id;
  }

  const deletes: Record<string, (campaignId: string, leadId: string, phoneNumber: string) => Promise<void>> = {
    'DELETE /api/v1/leads': async (campaignId, _, phoneNumber) => {
      ok(await f.request('DELETE', '/api/v1/leads', { query: { campaignId, phoneNumber } }));
    },
    'POST /api/v1/leads/bulk-delete': async (campaignId, _, phoneNumber) => {
      expect(ok(await f.request('POST', '/api/v1/leads/bulk-delete', { body: { campaignId, leads: [{ phoneNumber }] } }))).toMatchObject({
        deleted: 1,
      });
    },
    dashboard: async (campaignId, leadId) => {
      await browser.get(`/dashboard/campaigns/${campaignId}/leads/${leadId}/delete`);
      expect((await browser.post(`/dashboard/campaigns/${campaignId}/leads/${leadId}/delete`)).status).toBe(303);
    },
  };

  it.each(Object.keys(deletes))('%s: the number is gone from every table, and the re-added lead is still at its cap', async (how) => {
    const phoneNumber = `+1415555${String(3000 + n++)}`;
    const c = await campaign();
    const t = f.clock.now;
    const id = await calledLead(c, phoneNumber, t);
    await deletes[how]!(c, id, phoneNumber);
    expect(await whereStored(f.db, phoneNumber)).toEqual([]);
    // the call is still in the call log, with its digest in place of the number
    const [attempt] = await attemptRows(f.db, id);
    expect(attempt).toMatchObject({
      phone_number: null,
      reason: 'voicemail of [deleted]',
      phone_digest: expect.stringMatching(/^[0-9a-f]{64}$/),
    });

    const again = await addLead(c, phoneNumber);
    expect(await dial(c, t + H)).toMatchObject({ attempts: 0 });
    expect(await attemptRows(f.db, again)).toEqual([]);
    const why = await explainLead(f.db, c, { phoneNumber }, t + H);
    expect(why.details[CAP]).toBe(`1/1d; next allowed at ${new Date(t + 24 * H).toISOString()}`);
    // and in another campaign of the company too
    const other = await campaign();
    await addLead(other, phoneNumber);
    expect(await dial(other, t + 2 * H)).toMatchObject({ attempts: 0 });
    expect(await dial(other, t + 24 * H + 1000)).toMatchObject({ attempts: 1 });
  });

  it('a call in progress keeps its number until it ends; then it goes too', async () => {
    const phoneNumber = '+14155554001';
    const c = await campaign();
    const t = f.clock.now;
    const id = await addLead(c, phoneNumber);
    const [lead] = await claimDue(f.db, { campaignId: c, maxAttempts: 3, workerId: 'w1', limit: 1, now: t, leaseMs: H });
    expect(await f.db.queue.open([{ attemptId: 'at_inflight_1', lead: lead!, phoneNumber, startedAt: t, deadlineAt: t + H }], t)).toEqual([
      'opened',
    ]);
    ok(await f.request('DELETE', '/api/v1/leads', { query: { campaignId: c, phoneNumber } }));
    expect((await whereStored(f.db, phoneNumber)).map((x) => x.at)).toEqual(['attempts.phone_number']);
    const pending = (await f.db.queue.pending('at_inflight_1'))!;
    const closing = closingForPending(pending, {
      success: false,
      outcome: 'no-answer',
      reason: `no answer at ${phoneNumber}`,
      durationSeconds: 20,
      counts: true,
      finishedAt: t + 30_000,
    });
    expect(await f.db.queue.close([closing], 'report', t + 30_000)).toEqual([{ result: 'gone' }]);
    // but for the reason the platform gave, as its attempt.finished event holds it (docs/compliance.md)
    expect((await whereStored(f.db, phoneNumber)).map((x) => [x.at, x.row.type])).toEqual([['events.items', 'attempt.finished']]);
    expect((await attemptRows(f.db, id))[0]).toMatchObject({ phone_number: null, state: 'closed', reason: 'no answer at [deleted]' });
    await addLead(c, phoneNumber);
    expect(await dial(c, t + H)).toMatchObject({ attempts: 0 });
  });

  it('a bulk delete of 1000 leads with 2 calls each removes every number, in chunks, in one request', async () => {
    const c = await campaign();
    const numbers = Array.from({ length: 1000 }, (_, i) => `+1312555${String(i).padStart(4, '0')}`);
    ok(await f.request('POST', '/api/v1/leads/bulk', { body: { campaignId: c, leads: numbers.map((phoneNumber) => ({ phoneNumber })) } }));
    // two closed calls per lead, written as the dialer writes them (dialling 1000 leads here would only be slower)
    const t = f.clock.now - 2 * 24 * H;
    for (const k of [1, 2])
      await sql`insert into attempts (attempt_id, lead_id, campaign_id, company_id, attempt, started_at, finished_at, success, outcome,
          phone_number, worker, state, closed_by, counts)
        select 'at_bulk_' || ${k} || '_' || l.id, l.id, l.campaign_id, ${f.ids.companyA}, ${k}, ${t + k}, ${t + k + 1000}, 0, 'no-answer',
          l.phone_number, 'w1', 'closed', 'dialer', 1
        from leads l where l.campaign_id = ${c}`.execute(f.db.kysely);
    const started = performance.now();
    const res = await f.request('POST', '/api/v1/leads/bulk-delete', {
      body: { campaignId: c, leads: numbers.map((phoneNumber) => ({ phoneNumber })) },
    });
    const ms = performance.now() - started;
    expect(ok(res)).toMatchObject({ deleted: 1000 });
    const counts = await sql<{ numbered: number; digested: number }>`select count(phone_number) as numbered, count(phone_digest) as digested
      from attempts where campaign_id = ${c}`.execute(f.db.kysely);
    expect(counts.rows.map((r) => [Number(r.numbered), Number(r.digested)])).toEqual([[0, 2000]]);
    for (const n of [numbers[0]!, numbers[499]!, numbers[500]!, numbers[999]!]) expect(await whereStored(f.db, n)).toEqual([]);
    // a generous bound: here it took 68 ms on SQLite and 147 ms on PostgreSQL (14 and 30 without removing the numbers)
    expect(ms).toBeLessThan(10_000);
  });

  it('a number on the do-not-call list stays there, and only there', async () => {
    const phoneNumber = '+14155554101';
    const c = await campaign();
    await calledLead(c, phoneNumber, f.clock.now);
    ok(await f.request('POST', '/api/v1/dnc', { body: { phoneNumbers: [phoneNumber] } }));
    ok(await f.request('DELETE', '/api/v1/leads', { query: { campaignId: c, phoneNumber } }));
    const left = await whereStored(f.db, phoneNumber);
    // the list, and its own history: the dnc.added event names the numbers it listed (docs/compliance.md)
    expect(left.map((x) => x.at).sort()).toEqual(['dnc.phone_number', 'events.items']);
    expect(left.find((x) => x.at === 'events.items')!.row.type).toBe('dnc.added');
  });
});
