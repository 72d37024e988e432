/** The Vapi adapter against the local Vapi fake (test/fakes/vapi.ts). */
import { createHmac } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { VAPI_DNC_KEY, vapi, webhookSecret } from '../../src/dialer/providers/platforms/vapi.js';
import type { PlatformContext } from '../../src/dialer/providers/platforms/types.js';
import { VapiFake } from '../fakes/vapi.js';
import { callRequest, context, decide, never, type Receiver, startReceiver } from './support.js';
import { closedPortUrl } from './closed-port.js';

const KEY = 'vapi-private-key-1';
const OPTIONS = { assistantId: 'asst-1', phoneNumberId: 'pn-1' };
let fake: VapiFake;
let receiver: Receiver;
let ctx: PlatformContext;

beforeEach(async () => {
  fake = await VapiFake.start({ apiKey: KEY, concurrencyLimit: 2 });
  receiver = await startReceiver(vapi, () => ctx);
  ctx = context({ secret: KEY, baseUrl: fake.baseUrl, options: OPTIONS, callbackUrl: receiver.callbackUrl('at_3kXq9') });
});
afterEach(async () => {
  await fake.close();
  await receiver.close();
});

async function placed() {
  const r = await vapi.place(callRequest(), ctx, never);
  if (r.kind !== 'accepted') throw new Error(`not accepted: ${JSON.stringify(r)}`);
  return r;
}

describe('vapi options', () => {
  it('takes assistantId and phoneNumberId; a missing, empty or unknown key is an error naming it', () => {
    expect(vapi.parseOptions(OPTIONS)).toEqual(OPTIONS);
    expect(() => vapi.parseOptions({ assistantId: 'a' })).toThrow(/missing --provider-option phoneNumberId/);
    expect(() => vapi.parseOptions({ ...OPTIONS, assistantId: ' ' })).toThrow(/assistantId is empty/);
    expect(() => vapi.parseOptions({ ...OPTIONS, fromNumber: '+1' })).toThrow(/unknown --provider-option "fromNumber"/);
  });
});

describe('vapi create-call', () => {
  it('sends one POST /call with the bearer key, every required field, the callback URL and the variables', async () => {
    const r = await placed();
    const [req, ...more] = fake.creates();
    expect(more).toHaveLength(0);
    expect(req!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(req!.headers['content-type']).toBe('application/json');
    const body = JSON.parse(req!.raw);
    expect(body).toMatchObject({ assistantId: 'asst-1', phoneNumberId: 'pn-1', customer: { number: '+14155550123' } });
    expect(body.assistantOverrides.variableValues).toEqual({
      name: 'Ada',
      plan: 'pro',
      score: 7,
      tags: ['a', 'b'],
      leadId: 'ld_7Hd2',
      attemptId: 'at_3kXq9',
      externalId: 'crm-42',
    });
    expect(body.assistantOverrides.server).toEqual({ url: ctx.callbackUrl, headers: { 'X-Vapi-Secret': webhookSecret(ctx) } });
    expect(body.assistantOverrides.monitorPlan).toEqual({ controlEnabled: true });
    expect(r).toEqual({
      kind: 'accepted',
      providerCallId: fake.calls.keys().next().value,
      control: `${fake.baseUrl}/control/${r.providerCallId}`,
    });
  });

  it('the webhook secret is derived from the API key unless --provider-webhook-secret is given, and the key itself is never sent', async () => {
    expect(webhookSecret({ secret: KEY, webhookSecret: null })).toMatch(/^[0-9a-f]{64}$/);
    expect(webhookSecret({ secret: KEY, webhookSecret: 'given' })).toBe('given');
    await placed();
    expect(fake.creates()[0]!.raw).not.toContain(`"${KEY}"`);
  });

  it('a wrong API key is refused before placing: not placed', async () => {
    const r = await vapi.place(callRequest(), { ...ctx, secret: 'wrong' }, never);
    expect(r).toMatchObject({ kind: 'not-placed', reason: expect.stringContaining('HTTP 401') });
  });

  it('a 429 is not placed, with Retry-After; concurrencyBlocked is not placed', async () => {
    fake.refuseNextCreate(429, { 'retry-after': '7' });
    expect(await vapi.place(callRequest(), ctx, never)).toMatchObject({ kind: 'not-placed', retryAfterMs: 7000 });
    await placed();
    await placed();
    expect(await vapi.place(callRequest(), ctx, never)).toEqual({
      kind: 'not-placed',
      reason: expect.stringContaining('concurrencyBlocked'),
    });
  });

  it('a timeout after sending is unknown and the create is never sent again', async () => {
    fake.next('hang');
    expect(await vapi.place(callRequest(), { ...ctx, timeoutMs: 300 }, never)).toMatchObject({
      kind: 'unknown',
      reason: expect.stringContaining('no answer within 300 ms'),
    });
    expect(fake.creates()).toHaveLength(1);
  });

  it('a connection reset mid-answer is unknown; a refused connection is not placed; a 5xx is unknown', async () => {
    fake.next('reset');
    expect((await vapi.place(callRequest(), ctx, never)).kind).toBe('unknown');
    expect((await vapi.place(callRequest(), { ...ctx, baseUrl: await closedPortUrl() }, never)).kind).toBe('not-placed');
    fake.refuseNextCreate(503);
    expect((await vapi.place(callRequest(), ctx, never)).kind).toBe('unknown');
  });

  it('a request Vapi refuses as invalid (a number that is not E.164) is a failed attempt', async () => {
    expect(await vapi.place(callRequest({ phoneNumber: '4155550123' }), ctx, never)).toMatchObject({
      kind: 'finished',
      success: false,
      outcome: 'failed',
    });
  });
});

describe('vapi webhooks', () => {
  it('signed events are accepted; only end-of-call-report is terminal; duplicates and late events never change the first outcome', async () => {
    const { providerCallId } = await placed();
    const id = providerCallId!;
    fake.setStatus(id, 'in-progress');
    expect((await fake.deliver(id, 'status-update')).status).toBe(200);
    fake.end(id, { endedReason: 'customer-ended-call', seconds: 42 });
    expect((await fake.deliver(id, 'end-of-call-report')).status).toBe(200);
    expect((await fake.deliver(id, 'end-of-call-report')).status).toBe(200);
    fake.end(id, { endedReason: 'customer-busy' }); // a late, conflicting report
    expect((await fake.deliver(id, 'status-update')).status).toBe(200);
    await fake.deliver(id, 'end-of-call-report');
    const events = receiver.accepted.flatMap((a) => a.events);
    expect(events.map((e) => e.terminal)).toEqual([false, true, true, false, true]);
    expect(events[0]).toEqual({ providerCallId: id, attemptId: 'at_3kXq9', terminal: false, progress: 'in-progress' });
    expect(events[3]).toMatchObject({ terminal: false, progress: 'ended' });
    expect(decide(events)).toEqual({
      providerCallId: id,
      attemptId: 'at_3kXq9',
      terminal: true,
      outcome: 'answered',
      success: true,
      reason: 'customer-ended-call',
      durationSeconds: 42,
    });
  });

  it('a missing or wrong credential gets 401 and yields no event', async () => {
    const { providerCallId } = await placed();
    fake.end(providerCallId!, { endedReason: 'customer-ended-call' });
    expect((await fake.deliver(providerCallId!, 'end-of-call-report', { auth: 'none' })).status).toBe(401);
    const other = { ...ctx, webhookSecret: 'another' };
    const good = fake.webhook(providerCallId!, 'end-of-call-report');
    expect(vapi.verify({ rawBody: good.body, headers: lower(good.headers), url: good.url }, other)).toBe(false);
    expect(receiver.accepted).toHaveLength(0);
    expect(receiver.refused).toHaveLength(1);
  });

  it("an HMAC credential with Vapi's defaults is checked against the raw body and a five-minute timestamp window", async () => {
    ctx = { ...ctx, webhookSecret: 'hmac-secret' };
    const { providerCallId } = await vapi.place(callRequest(), ctx, never).then((r) => r as { providerCallId: string });
    fake.end(providerCallId, { endedReason: 'voicemail' });
    expect((await fake.deliver(providerCallId, 'end-of-call-report', { auth: 'hmac', hmacSecret: 'hmac-secret' })).status).toBe(200);
    expect((await fake.deliver(providerCallId, 'end-of-call-report', { auth: 'hmac', hmacSecret: 'wrong' })).status).toBe(401);
    expect(
      (await fake.deliver(providerCallId, 'end-of-call-report', { auth: 'hmac', hmacSecret: 'hmac-secret', tamper: true })).status,
    ).toBe(401);
    const stale = Math.floor(Date.now() / 1000) - 6 * 60;
    expect(
      (await fake.deliver(providerCallId, 'end-of-call-report', { auth: 'hmac', hmacSecret: 'hmac-secret', timestamp: stale })).status,
    ).toBe(401);
    expect(receiver.accepted.flatMap((a) => a.events)).toEqual([
      expect.objectContaining({ terminal: true, outcome: 'voicemail', success: false }),
    ]);
    // the signature is over "{timestamp}.{body}"
    const ts = String(Math.floor(Date.now() / 1000));
    const sig = createHmac('sha256', 'hmac-secret').update(`${ts}.{}`).digest('hex');
    expect(vapi.verify({ rawBody: '{}', headers: { 'x-timestamp': ts, 'x-signature': sig }, url: ctx.callbackUrl }, ctx)).toBe(true);
  });

  it('maps endedReason through the table; an opt-out in structuredData is do-not-call', async () => {
    const cases: [string, Record<string, unknown> | undefined, string, boolean][] = [
      ['customer-busy', undefined, 'busy', false],
      ['customer-did-not-answer', undefined, 'no-answer', false],
      ['voicemail', undefined, 'voicemail', false],
      ['manually-canceled', undefined, 'canceled', false],
      ['call.start.error-subscription-concurrency-limit-reached', undefined, 'not-placed', false],
      ['pipeline-error-openai-llm-failed', undefined, 'failed', false],
      ['customer-ended-call', { [VAPI_DNC_KEY]: true }, 'do-not-call', true],
    ];
    for (const [endedReason, structuredData, outcome, success] of cases) {
      const { providerCallId } = await placed();
      fake.end(providerCallId!, { endedReason, structuredData });
      await fake.deliver(providerCallId!, 'end-of-call-report');
      const e = receiver.accepted.at(-1)!.events[0]!;
      expect({ endedReason, outcome: e.outcome, success: e.success }).toEqual({ endedReason, outcome, success });
      expect(e.doNotCall === true).toBe(outcome === 'do-not-call');
      fake.forget(providerCallId!); // frees a concurrency slot
    }
  });
});

describe('vapi lookup and hang-up', () => {
  it('looks up an ended, an in-progress and an unknown call', async () => {
    const { providerCallId } = await placed();
    const ref = { attemptId: 'at_3kXq9', providerCallId };
    expect(await vapi.lookup(ref, ctx, never)).toEqual({ state: 'in-progress' });
    fake.end(providerCallId!, { endedReason: 'customer-ended-call', seconds: 30 });
    expect(await vapi.lookup(ref, ctx, never)).toEqual({
      state: 'ended',
      outcome: 'answered',
      success: true,
      reason: 'customer-ended-call',
      durationSeconds: 30,
    });
    fake.forget(providerCallId!);
    expect(await vapi.lookup(ref, ctx, never)).toEqual({ state: 'not-found' });
    expect(await vapi.lookup({ attemptId: 'x', providerCallId: null }, ctx, never)).toEqual({ state: 'not-found' });
  });

  it('hangs up with end-call on the control URL, found through GET /call when the dialer has none', async () => {
    const { providerCallId, control } = await placed();
    fake.setStatus(providerCallId!, 'in-progress');
    await vapi.hangUp({ attemptId: 'at_3kXq9', providerCallId, control: null }, ctx, never);
    const req = fake.http.requests.find((r) => r.path === `/control/${providerCallId}`)!;
    expect(JSON.parse(req.raw)).toEqual({ type: 'end-call' });
    expect(fake.calls.get(providerCallId!)!.status).toBe('ended');
    // over already: nothing to do, no error
    await vapi.hangUp({ attemptId: 'at_3kXq9', providerCallId, control }, ctx, never);
  });
});

function lower(h: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toLowerCase(), v]));
}
