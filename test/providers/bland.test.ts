/** The Bland adapter against the local Bland fake (test/fakes/bland.ts). */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BLAND_DNC_KEY, bland } from '../../src/dialer/providers/platforms/bland.js';
import type { PlatformContext } from '../../src/dialer/providers/platforms/types.js';
import { BlandFake, type BlandEnd } from '../fakes/bland.js';
import { closedPortUrl } from './closed-port.js';
import { callRequest, context, decide, never, type Receiver, startReceiver } from './support.js';

const KEY = 'sk-bland-1';
const SIGNING = 'whsec-bland-1';
let fake: BlandFake;
let receiver: Receiver;
let ctx: PlatformContext;

beforeEach(async () => {
  fake = await BlandFake.start({ apiKey: KEY, signingSecret: SIGNING, concurrencyLimit: 2 });
  receiver = await startReceiver(bland, () => ctx);
  ctx = context({
    secret: KEY,
    webhookSecret: SIGNING,
    baseUrl: fake.baseUrl,
    options: { pathwayId: 'pw-1', from: '+14155550100' },
    callbackUrl: receiver.callbackUrl('at_3kXq9'),
  });
});
afterEach(async () => {
  await fake.close();
  await receiver.close();
});

async function placed(c = ctx) {
  const r = await bland.place(callRequest(), c, never);
  if (r.kind !== 'accepted') throw new Error(`not accepted: ${JSON.stringify(r)}`);
  return r.providerCallId!;
}

describe('bland options', () => {
  it('takes pathwayId or task (one of them) and an optional from (E.164)', () => {
    expect(bland.parseOptions({ pathwayId: 'pw-1' })).toEqual({ pathwayId: 'pw-1' });
    expect(bland.parseOptions({ task: 'Call {{name}} about the renewal.', from: '+14155550100' })).toEqual({
      task: 'Call {{name}} about the renewal.',
      from: '+14155550100',
    });
    expect(() => bland.parseOptions({})).toThrow(/pathwayId=... or task=/);
    expect(() => bland.parseOptions({ pathwayId: 'pw', task: 't' })).toThrow(/not both/);
    expect(() => bland.parseOptions({ task: 't', from: '555' })).toThrow(/from must be an E.164/);
    expect(() => bland.parseOptions({ task: 't', voice: 'maya' })).toThrow(/unknown --provider-option "voice"/);
  });
  it('needs the webhook signing secret, which is not the API key', () => {
    expect(bland.requiresWebhookSecret).toBe(true);
  });
});

describe('bland send call', () => {
  it('sends one POST /v1/calls with the raw key, the pathway, from, the webhook, and the variables in request_data and metadata', async () => {
    const id = await placed();
    const [req, ...more] = fake.creates();
    expect(more).toHaveLength(0);
    expect(req!.headers.authorization).toBe(KEY);
    expect(req!.headers['content-type']).toBe('application/json');
    const vars = { name: 'Ada', plan: 'pro', score: 7, tags: ['a', 'b'], leadId: 'ld_7Hd2', attemptId: 'at_3kXq9', externalId: 'crm-42' };
    expect(JSON.parse(req!.raw)).toEqual({
      phone_number: '+14155550123',
      pathway_id: 'pw-1',
      from: '+14155550100',
      webhook: ctx.callbackUrl,
      request_data: vars,
      metadata: vars,
      answered_by_enabled: true,
    });
    expect(fake.calls.has(id)).toBe(true);
  });

  it('a task instead of a pathway, and no from', async () => {
    await placed({ ...ctx, options: { task: 'Call {{name}}.' } });
    const body = JSON.parse(fake.creates()[0]!.raw);
    expect(body.task).toBe('Call {{name}}.');
    expect(body).not.toHaveProperty('pathway_id');
    expect(body).not.toHaveProperty('from');
  });

  it('refusals before placing are not placed; a 500 and a timeout are unknown; an invalid number is failed', async () => {
    expect((await bland.place(callRequest(), { ...ctx, secret: 'bad' }, never)).kind).toBe('not-placed');
    fake.refuseNextCreate(429, { 'retry-after': '2' });
    expect(await bland.place(callRequest(), ctx, never)).toMatchObject({ kind: 'not-placed', retryAfterMs: 2000 });
    await placed();
    await placed();
    expect(await bland.place(callRequest(), ctx, never)).toMatchObject({
      kind: 'not-placed',
      reason: expect.stringContaining('Concurrency'),
    });
    fake.refuseNextCreate(500);
    expect((await bland.place(callRequest(), ctx, never)).kind).toBe('unknown');
    fake.next('hang');
    expect((await bland.place(callRequest(), { ...ctx, timeoutMs: 300 }, never)).kind).toBe('unknown');
    expect((await bland.place(callRequest(), { ...ctx, baseUrl: await closedPortUrl() }, never)).kind).toBe('not-placed');
    for (const id of fake.calls.keys()) fake.forget(id);
    expect(await bland.place(callRequest({ phoneNumber: '555-0123' }), ctx, never)).toMatchObject({
      kind: 'finished',
      outcome: 'failed',
      reason: expect.stringContaining('E.164'),
    });
    expect(fake.creates()).toHaveLength(8);
  });
});

describe('bland webhooks', () => {
  it('the post-call webhook is terminal; a duplicate repeats it; the delayed transcript payload is not terminal, before or after', async () => {
    const id = await placed();
    fake.end(id, { status: 'completed', answered_by: 'human', minutes: 1.5 });
    await fake.deliver(id, { delayed: true }); // out of order: the late payload first
    await fake.deliver(id);
    await fake.deliver(id);
    await fake.deliver(id, { delayed: true });
    const events = receiver.accepted.flatMap((a) => a.events);
    expect(events.map((e) => e.terminal)).toEqual([false, true, true, false]);
    expect(events[0]).toEqual({ providerCallId: id, attemptId: 'at_3kXq9', terminal: false, progress: 'transcript-corrected' });
    expect(decide(events)).toEqual({
      providerCallId: id,
      attemptId: 'at_3kXq9',
      terminal: true,
      outcome: 'answered',
      success: true,
      reason: 'completed, answered_by human',
      durationSeconds: 90,
    });
  });

  it('a wrong secret, a tampered body, a missing header, or no signing secret configured: 401', async () => {
    const id = await placed();
    fake.end(id, { status: 'completed', answered_by: 'human' });
    expect((await fake.deliver(id, { secret: 'other' })).status).toBe(401);
    expect((await fake.deliver(id, { tamper: true })).status).toBe(401);
    expect((await fake.deliver(id, { unsigned: true })).status).toBe(401);
    ctx = { ...ctx, webhookSecret: null };
    expect((await fake.deliver(id)).status).toBe(401);
    expect(receiver.accepted).toHaveLength(0);
  });

  it('maps answered_by, status and queue_status; a do_not_call variable is do-not-call', async () => {
    const cases: [BlandEnd, string][] = [
      [{ status: 'completed', answered_by: 'voicemail' }, 'voicemail'],
      [{ status: 'no-answer', answered_by: 'no-answer' }, 'no-answer'],
      [{ status: 'completed', answered_by: 'unknown' }, 'answered'],
      [{ status: 'failed', queue_status: 'call_error', error_message: 'transfer failed' }, 'failed'],
      [{ status: 'completed', answered_by: 'human', variables: { [BLAND_DNC_KEY]: 'true' } }, 'do-not-call'],
    ];
    for (const [end, outcome] of cases) {
      const id = await placed();
      fake.end(id, end);
      await fake.deliver(id);
      const e = receiver.accepted.at(-1)!.events[0]!;
      expect({ end, outcome: e.outcome }).toEqual({ end, outcome });
      expect(e.doNotCall === true).toBe(outcome === 'do-not-call');
    }
  });
});

describe('bland lookup and stop', () => {
  it('looks up an in-progress, an ended and an unknown call', async () => {
    const id = await placed();
    const ref = { attemptId: 'at_3kXq9', providerCallId: id };
    fake.start(id);
    expect(await bland.lookup(ref, ctx, never)).toEqual({ state: 'in-progress' });
    fake.end(id, { status: 'completed', answered_by: 'voicemail', minutes: 0.5 });
    expect(await bland.lookup(ref, ctx, never)).toEqual({
      state: 'ended',
      outcome: 'voicemail',
      success: false,
      reason: 'completed, answered_by voicemail',
      durationSeconds: 30,
    });
    fake.forget(id);
    expect(await bland.lookup(ref, ctx, never)).toEqual({ state: 'not-found' });
  });

  it('stops a live call; a call already over ("SID not found") is no error', async () => {
    const id = await placed();
    fake.start(id);
    await bland.hangUp({ attemptId: 'at_3kXq9', providerCallId: id }, ctx, never);
    expect(fake.http.requests.filter((r) => r.path === `/v1/calls/${id}/stop`)).toHaveLength(1);
    expect(fake.calls.get(id)!.completed).toBe(true);
    await bland.hangUp({ attemptId: 'at_3kXq9', providerCallId: id }, ctx, never);
  });

  it('refuses a call id that is a dot segment: it would send the key up a path (/v1/calls/../stop is /v1/stop)', async () => {
    const before = fake.http.requests.length;
    for (const id of ['..', '.', '%2e%2E']) {
      await expect(bland.hangUp({ attemptId: 'at_3kXq9', providerCallId: id }, ctx, never)).rejects.toThrow(/not a path segment/);
      await expect(bland.lookup({ attemptId: 'at_3kXq9', providerCallId: id }, ctx, never)).rejects.toThrow(/not a path segment/);
    }
    expect(fake.http.requests.length).toBe(before);
  });
});
