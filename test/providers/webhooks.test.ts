/**
 * The platforms' webhooks into `leadline serve`, on both stores, against the local fakes: each
 * fake places the call (through the dialer), then posts its webhooks the way the platform does;
 * the route verifies them with the platform's scheme and records the first terminal event once.
 */
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closingForPending } from '../../src/dialer/attempts.js';
import { Dialer } from '../../src/dialer/worker.js';
// the server's own requests (Twilio's call resource) reach the fakes on 127.0.0.1, as with OUTBOUND_ALLOW=127.0.0.0/8
import '../dialer/http-stub.js';
import { availableStores } from '../helpers/db.js';
import { type Fixture, makeFixture } from '../helpers/fixture.js';
import { attemptRows, expectHeldBackNotPlaced, leadRow, makeCampaign, seedLeads } from '../dialer/support.js';
import { localRequester, PLATFORM_NAMES, PUBLIC_URL, type PlatformCase, startCase, type Webhook } from './platform-cases.js';

const silent = pino({ level: 'silent' });
/** every header a platform signs with */
const SIGNATURES = [
  'x-vapi-secret',
  'authorization',
  'x-signature',
  'x-timestamp',
  'x-retell-signature',
  'x-webhook-signature',
  'x-twilio-signature',
];

describe.each(await availableStores())('webhooks in on %s', (kind) => {
  let f: Fixture;
  beforeAll(async () => {
    f = await makeFixture(kind, { env: { PUBLIC_URL } });
  });
  afterAll(() => f?.close());

  const post = async (w: Webhook) => {
    expect(w.url.startsWith(`${PUBLIC_URL}/api/v1/providers/`)).toBe(true);
    const res = await f.app.inject({ method: 'POST', url: w.url.slice(PUBLIC_URL.length), headers: w.headers, payload: w.body });
    return { status: res.statusCode, body: JSON.parse(res.body) };
  };

  /** a call placed through the platform by the dialer: its lead and the platform's call id */
  async function placed(p: PlatformCase) {
    const campaignId = await makeCampaign(f.db, p.settings(p.baseUrl));
    const [lead] = await seedLeads(f.db, campaignId, [{ metadata: { name: 'Ada' } }]);
    await new Dialer({ store: f.db, logger: silent, campaignIds: [campaignId], publicUrl: PUBLIC_URL, request: localRequester }).runOnce();
    const [attempt] = await attemptRows(f.db, lead!);
    expect(attempt).toMatchObject({ state: 'accepted' });
    return { lead: lead!, attemptId: attempt!.attempt_id, callId: attempt!.provider_call_id! };
  }

  it.each(['vapi', 'retell'] as const)(
    '%s: a call the platform ended without dialling spends no attempt; its lead waits about 30 s before it is due again',
    async (name) => {
      const p = await startCase(name);
      try {
        const { lead, attemptId, callId } = await placed(p);
        const reportedAt = f.clock.now; // the app's clock, which closes the attempt
        expect(await post(p.notPlaced!(callId))).toMatchObject({
          status: 200,
          body: { data: { attemptId, recorded: true, outcome: 'not-placed', leadStatus: 'raw' } },
        });
        expect(await attemptRows(f.db, lead)).toMatchObject([{ state: 'closed', outcome: 'not-placed', counts: 0 }]);
        await expectHeldBackNotPlaced(f.db, lead, reportedAt);
      } finally {
        await p.close();
      }
    },
  );

  it.each(PLATFORM_NAMES)(
    '%s: progress changes nothing; the first terminal event decides once; repeats and later ones change nothing',
    async (name) => {
      const p = await startCase(name);
      try {
        const { lead, attemptId, callId } = await placed(p);
        const progress = await post(p.progress(callId));
        expect(progress).toMatchObject({ status: 200, body: { data: { attemptId, recorded: false, outcome: null } } });
        expect(await attemptRows(f.db, lead)).toMatchObject([{ state: 'accepted' }]);

        const answered = p.answered(callId);
        const first = await post(answered);
        expect(first).toMatchObject({
          status: 200,
          body: { data: { attemptId, recorded: true, outcome: 'answered', leadStatus: 'concluded' } },
        });
        // at least once: the same webhook again, then a different, later terminal one
        expect(await post(answered)).toMatchObject({ status: 200, body: { data: { recorded: false } } });
        expect(await post(p.busy(callId))).toMatchObject({ status: 200, body: { data: { recorded: false } } });
        expect(await attemptRows(f.db, lead)).toMatchObject([{ state: 'closed', closed_by: 'report', outcome: 'answered', success: 1 }]);
        expect(await leadRow(f.db, lead)).toMatchObject({ status: 'concluded', attempts: 1, claimed_by: null });
      } finally {
        await p.close();
      }
    },
  );

  it.each(PLATFORM_NAMES)('%s: a bad or missing signature gets 401 and writes nothing', async (name) => {
    const p = await startCase(name);
    try {
      const { lead, callId } = await placed(p);
      const forged = await post(p.forged(callId));
      expect(forged).toEqual({ status: 401, body: { success: false, data: null, error: 'Invalid or missing webhook signature' } });
      const good = p.busy(callId);
      const unsigned = {
        ...good,
        headers: Object.fromEntries(Object.entries(good.headers).filter(([k]) => !SIGNATURES.includes(k.toLowerCase()))),
      };
      expect((await post(unsigned)).status).toBe(401);
      // Vapi's bearer credential (X-Vapi-Secret) does not sign the body (docs/providers.md); the others do
      if (name !== 'vapi') expect((await post({ ...good, body: `${good.body} ` })).status).toBe(401);
      expect(await attemptRows(f.db, lead)).toMatchObject([{ state: 'accepted', outcome: null }]);
      // the genuine one still counts
      expect(await post(good)).toMatchObject({ status: 200, body: { data: { recorded: true } } });
      expect(await attemptRows(f.db, lead)).toMatchObject([{ state: 'closed', outcome: name === 'bland' ? 'no-answer' : 'busy' }]);
    } finally {
      await p.close();
    }
  });

  it.each([
    ['vapi', 'do-not-call'],
    ['retell', 'answered'],
  ] as const)('%s: an opt-out in the call analysis puts the number on the do-not-call list (outcome %s)', async (name, outcome) => {
    const p = await startCase(name);
    try {
      const { lead, attemptId } = await placed(p);
      for (const w of p.optOut!((await attemptRows(f.db, lead))[0]!.provider_call_id!)) expect((await post(w)).status).toBe(200);
      const [attempt] = await attemptRows(f.db, lead);
      expect(attempt).toMatchObject({ attempt_id: attemptId, state: 'closed', outcome });
      expect(await f.db.dnc.get(attempt!.company_id, attempt!.phone_number!)).toMatchObject({ source: 'call' });
    } finally {
      await p.close();
    }
  });

  // Vapi's end-of-call-report carries the analysis, so its terminal event is the opt-out (Retell's comes after, as progress)
  it.each(['vapi'] as const)(
    '%s: an opt-out whose attempt the call timeout closes between its read and its close still lists the number',
    async (name) => {
      const p = await startCase(name);
      const queue = f.db.queue;
      const close = queue.close;
      try {
        const { lead, callId } = await placed(p);
        // the webhook has read the attempt as pending; the call timeout closes it before the webhook's close
        queue.close = async (batch, by, now) => {
          queue.close = close;
          const pending = (await queue.pending(batch[0]!.attemptId))!;
          const unknown = {
            success: false,
            outcome: 'unknown',
            reason: 'no outcome',
            durationSeconds: null,
            counts: true,
            finishedAt: now,
          };
          await close.call(queue, [closingForPending(pending, unknown)], 'timeout', now);
          return close.call(queue, batch, by, now);
        };
        const [optOut] = p.optOut!(callId);
        expect(await post(optOut!)).toMatchObject({ status: 200, body: { data: { recorded: false } } });
        const [attempt] = await attemptRows(f.db, lead);
        expect(attempt).toMatchObject({ state: 'closed', closed_by: 'timeout', outcome: 'unknown' });
        expect(await f.db.dnc.get(attempt!.company_id, attempt!.phone_number!)).toMatchObject({ source: 'call' });
      } finally {
        queue.close = close;
        await p.close();
      }
    },
  );

  it('twilio: a completed call whose status callback lacks the machine detection verdict takes it from the call resource', async () => {
    const p = await startCase('twilio');
    try {
      const { lead, attemptId, callId } = await placed(p);
      expect(await post(p.voicemailOnResource!(callId))).toMatchObject({
        status: 200,
        body: { data: { attemptId, recorded: true, outcome: 'voicemail' } },
      });
      expect(await attemptRows(f.db, lead)).toMatchObject([
        { state: 'closed', outcome: 'voicemail', reason: 'completed, answered by machine_end_beep', duration_seconds: 31 },
      ]);
      // the call resource was asked once, by its sid
      expect(p.lookups!()).toEqual([callId]);
    } finally {
      await p.close();
    }
  });

  it('an event for no known call is 404; an unknown platform is 404', async () => {
    const p = await startCase('retell');
    try {
      const { callId } = await placed(p);
      const w = p.answered(callId);
      // another platform's route does not match a retell call
      expect((await post({ ...w, url: w.url.replace('/providers/retell/', '/providers/vapi/') })).status).toBe(404);
      expect((await post({ ...w, url: w.url.replace('/providers/retell/', '/providers/vonage/') })).status).toBe(404);
    } finally {
      await p.close();
    }
  });
});
