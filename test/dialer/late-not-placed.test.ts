/**
 * A platform that takes every call and then reports each one not placed pauses its campaign, as
 * one refusing calls outright does: after 20 such outcomes with no placed call's outcome among
 * them, once the first is older than the call timeout. Within the call timeout, or with a placed
 * call's outcome among them (a campaign running more calls than its platform allows at once), it
 * does not. docs/dialer.md "Calls that cannot be placed".
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { resumeCampaign } from '../../src/campaigns/service.js';
import { reportOutcome } from '../../src/dialer/outcomes.js';
import { Dialer } from '../../src/dialer/worker.js';
import type { Store } from '../../src/store/index.js';
import { availableStores, useStore } from '../helpers/db.js';
import { startStub } from './http-stub.js';
import { attemptRows, makeCampaign, seedLeads } from './support.js';

const silent = pino({ level: 'silent' });
const T0 = Date.parse('2026-03-10T14:00:00.000Z');
const MIN = 60_000;
const CALL_TIMEOUT = 10 * MIN;

describe.each(await availableStores())('calls taken by the platform and reported not placed on %s', (kind) => {
  let db: Store;
  useStore(kind, (opened) => {
    db = opened;
  });

  /** a campaign whose platform takes every call (202): the attempts awaiting their outcomes, by lead */
  async function taken(n: number) {
    const phone = await startStub(null, (req) => ({ status: 202, body: { accepted: true, callId: `call-${req.body.leadId}` } }));
    try {
      const campaignId = await makeCampaign(db, {
        provider: 'webhook',
        provider_url: phone.url,
        concurrency: n,
        call_timeout_ms: CALL_TIMEOUT,
      });
      const leads = await seedLeads(
        db,
        campaignId,
        Array.from({ length: n }, () => ({})),
      );
      await new Dialer({ store: db, logger: silent, campaignIds: [campaignId], now: () => T0 }).runOnce();
      const attempts = await Promise.all(leads.map(async (id) => (await attemptRows(db, id))[0]!.attempt_id));
      expect(phone.requests).toHaveLength(n);
      const { company_id } = (await db.campaigns.byId(campaignId))!;
      const report = (attemptId: string, outcome: string, at: number) =>
        reportOutcome(db, { companyId: company_id, campaignId: null }, attemptId, { success: outcome === 'answered', outcome }, at);
      return { campaignId, attempts, report };
    } finally {
      await phone.close();
    }
  }
  const pausedReason = async (campaignId: string) => (await db.campaigns.byId(campaignId))!.paused_reason;

  it('20 and more in a row, none placed, past the call timeout: the campaign is paused, visibly, until resumed', async () => {
    const { campaignId, attempts, report } = await taken(22);
    for (const a of attempts.slice(0, 20)) await report(a, 'not-placed', T0 + MIN);
    // twenty, but all within the call timeout: a placed call's outcome may still come
    expect(await pausedReason(campaignId)).toBeNull();
    await report(attempts[20]!, 'not-placed', T0 + MIN + CALL_TIMEOUT);
    expect(await pausedReason(campaignId)).toBe(
      '21 calls in a row were taken by the platform and reported not placed, over 10 min, with no call placed',
    );
    expect(await resumeCampaign(db, campaignId)).toBe(true);
    expect(await db.campaigns.byId(campaignId)).toMatchObject({ paused_at: null, late_not_placed: 0, late_not_placed_since: null });
    // resumed: the run starts again from nothing
    await report(attempts[21]!, 'not-placed', T0 + MIN + CALL_TIMEOUT + 1);
    expect(await pausedReason(campaignId)).toBeNull();
  });

  it('an outcome of a placed call among them ends the run: more calls than the platform allows at once pause nothing', async () => {
    const { campaignId, attempts, report } = await taken(45);
    // the calls over the platform's limit are reported at once, the placed one when it ends
    for (const a of attempts.slice(0, 24)) await report(a, 'not-placed', T0 + MIN);
    await report(attempts[24]!, 'answered', T0 + 3 * MIN);
    for (const a of attempts.slice(25, 44)) await report(a, 'not-placed', T0 + 3 * MIN + CALL_TIMEOUT);
    expect(await pausedReason(campaignId)).toBeNull();
    expect(await db.campaigns.byId(campaignId)).toMatchObject({ late_not_placed: 19 });
    // an outcome that says nothing (unknown) neither counts nor ends the run
    await report(attempts[44]!, 'unknown', T0 + 4 * MIN + CALL_TIMEOUT);
    expect(await db.campaigns.byId(campaignId)).toMatchObject({ late_not_placed: 19, paused_at: null });
  });

  it('a run that did not reach 20 within a call timeout starts again: one the evening before does not make the morning a night-long run', async () => {
    const { campaignId, attempts, report } = await taken(21);
    await report(attempts[0]!, 'not-placed', T0);
    const morning = T0 + 12 * 60 * MIN;
    for (const a of attempts.slice(1, 21)) await report(a, 'not-placed', morning);
    expect(await pausedReason(campaignId)).toBeNull();
    expect(await db.campaigns.byId(campaignId)).toMatchObject({ late_not_placed: 20, late_not_placed_since: morning });
  });
});
