/** The Retell adapter against the local Retell fake (test/fakes/retell.ts). */
import { createHmac } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RETELL_DNC_KEY, retell } from '../../src/dialer/providers/platforms/retell.js';
import type { PlatformContext } from '../../src/dialer/providers/platforms/types.js';
import { RetellFake } from '../fakes/retell.js';
import { closedPortUrl } from './closed-port.js';
import { callRequest, context, decide, never, type Receiver, startReceiver } from './support.js';

const KEY = 'key_retell_1';
const FROM = '+14155550100';
let fake: RetellFake;
let receiver: Receiver;
let ctx: PlatformContext;

beforeEach(async () => {
  fake = await RetellFake.start({ apiKey: KEY, numbers: [FROM], concurrencyLimit: 2 });
  receiver = await startReceiver(retell, () => ctx);
  ctx = context({ secret: KEY, baseUrl: fake.baseUrl, options: { fromNumber: FROM }, callbackUrl: receiver.callbackUrl('at_3kXq9') });
});
afterEach(async () => {
  await fake.close();
  await receiver.close();
});

async function placed(c = ctx) {
  const r = await retell.place(callRequest(), c, never);
  if (r.kind !== 'accepted') throw new Error(`not accepted: ${JSON.stringify(r)}`);
  return r.providerCallId!;
}

describe('retell options', () => {
  it('takes fromNumber (E.164) and an optional agentId; anything else is an error naming the key', () => {
    expect(retell.parseOptions({ fromNumber: FROM })).toEqual({ fromNumber: FROM });
    expect(retell.parseOptions({ fromNumber: FROM, agentId: 'agent_9' })).toEqual({ fromNumber: FROM, agentId: 'agent_9' });
    expect(() => retell.parseOptions({ agentId: 'agent_9' })).toThrow(/missing --provider-option fromNumber/);
    expect(() => retell.parseOptions({ fromNumber: '4155550100' })).toThrow(/fromNumber must be an E.164/);
    expect(() => retell.parseOptions({ fromNumber: FROM, assistantId: 'x' })).toThrow(/unknown --provider-option "assistantId"/);
  });
});

describe('retell create-phone-call', () => {
  it('sends one POST with the bearer key, from/to, the webhook URL, metadata and the variables as strings', async () => {
    const id = await placed({ ...ctx, options: { fromNumber: FROM, agentId: 'agent_9' } });
    const [req, ...more] = fake.creates();
    expect(more).toHaveLength(0);
    expect(req!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(req!.headers['content-type']).toBe('application/json');
    const body = JSON.parse(req!.raw);
    expect(body).toMatchObject({ from_number: FROM, to_number: '+14155550123', override_agent_id: 'agent_9' });
    expect(body.agent_override).toEqual({ agent: { webhook_url: ctx.callbackUrl } });
    expect(body.metadata).toEqual({
      name: 'Ada',
      plan: 'pro',
      score: 7,
      tags: ['a', 'b'],
      leadId: 'ld_7Hd2',
      attemptId: 'at_3kXq9',
      externalId: 'crm-42',
    });
    expect(body.retell_llm_dynamic_variables).toEqual({
      name: 'Ada',
      plan: 'pro',
      score: '7',
      tags: '["a","b"]',
      leadId: 'ld_7Hd2',
      attemptId: 'at_3kXq9',
      externalId: 'crm-42',
    });
    expect(fake.calls.has(id)).toBe(true);
  });

  it("no agentId: no override_agent_id, the number's outbound agent is used; a null externalId is an empty string variable", async () => {
    await retell.place(callRequest({ externalId: null }), ctx, never);
    const body = JSON.parse(fake.creates()[0]!.raw);
    expect(body).not.toHaveProperty('override_agent_id');
    expect(body.retell_llm_dynamic_variables.externalId).toBe('');
  });

  it('a wrong key and a 429 (concurrency) are not placed; a 500 is unknown; a number Retell refuses is failed', async () => {
    expect((await retell.place(callRequest(), { ...ctx, secret: 'nope' }, never)).kind).toBe('not-placed');
    await placed();
    await placed();
    expect(await retell.place(callRequest(), ctx, never)).toMatchObject({
      kind: 'not-placed',
      reason: expect.stringContaining('Concurrency limit reached'),
    });
    fake.forget([...fake.calls.keys()][0]!);
    fake.refuseNextCreate(429, { 'retry-after': '3' });
    expect(await retell.place(callRequest(), ctx, never)).toMatchObject({ kind: 'not-placed', retryAfterMs: 3000 });
    fake.refuseNextCreate(500);
    expect((await retell.place(callRequest(), ctx, never)).kind).toBe('unknown');
    expect(await retell.place(callRequest(), { ...ctx, options: { fromNumber: '+14155550199' } }, never)).toMatchObject({
      kind: 'finished',
      outcome: 'failed',
    });
  });

  it('a timeout is unknown and sent once; a refused connection is not placed', async () => {
    fake.next('hang');
    expect((await retell.place(callRequest(), { ...ctx, timeoutMs: 300 }, never)).kind).toBe('unknown');
    expect(fake.creates()).toHaveLength(1);
    expect((await retell.place(callRequest(), { ...ctx, baseUrl: await closedPortUrl() }, never)).kind).toBe('not-placed');
  });
});

describe('retell webhooks', () => {
  it('call_ended is terminal; call_started is progress; call_analyzed enriches with the opt-out without deciding', async () => {
    const id = await placed();
    fake.start(id);
    await fake.deliver(id, 'call_started');
    fake.end(id, {
      reason: 'user_hangup',
      seconds: 61,
      analysis: { call_successful: true, custom_analysis_data: { [RETELL_DNC_KEY]: true } },
    });
    await fake.deliver(id, 'call_ended');
    await fake.deliver(id, 'call_ended'); // retried delivery
    await fake.deliver(id, 'call_analyzed');
    const events = receiver.accepted.flatMap((a) => a.events);
    expect(events).toEqual([
      { providerCallId: id, attemptId: 'at_3kXq9', terminal: false, progress: 'call_started' },
      {
        providerCallId: id,
        attemptId: 'at_3kXq9',
        terminal: true,
        outcome: 'answered',
        success: true,
        reason: 'user_hangup',
        durationSeconds: 61,
      },
      {
        providerCallId: id,
        attemptId: 'at_3kXq9',
        terminal: true,
        outcome: 'answered',
        success: true,
        reason: 'user_hangup',
        durationSeconds: 61,
      },
      { providerCallId: id, attemptId: 'at_3kXq9', terminal: false, progress: 'analyzed', doNotCall: true, phoneNumber: '+14155550123' },
    ]);
    expect(decide(events)).toBe(events[1]);
  });

  it('out of order: call_analyzed before call_ended does not decide; call_ended still does', async () => {
    const id = await placed();
    fake.end(id, { reason: 'dial_busy' });
    await fake.deliver(id, 'call_analyzed');
    await fake.deliver(id, 'call_ended');
    const events = receiver.accepted.flatMap((a) => a.events);
    expect(events.map((e) => e.terminal)).toEqual([false, true]);
    expect(decide(events)).toMatchObject({ outcome: 'busy', success: false });
  });

  it('refuses a wrong key, a tampered body, a missing header and a stale timestamp with 401', async () => {
    const id = await placed();
    fake.end(id, { reason: 'user_hangup' });
    expect((await fake.deliver(id, 'call_ended', { key: 'another' })).status).toBe(401);
    expect((await fake.deliver(id, 'call_ended', { tamper: true })).status).toBe(401);
    expect((await fake.deliver(id, 'call_ended', { unsigned: true })).status).toBe(401);
    expect((await fake.deliver(id, 'call_ended', { timestamp: Date.now() - 6 * 60 * 1000 })).status).toBe(401);
    expect(receiver.accepted).toHaveLength(0);
    expect((await fake.deliver(id, 'call_ended')).status).toBe(200);
  });

  it('verifies with --provider-webhook-secret when the webhook-badge key is not the API key', async () => {
    const body = '{"event":"call_started","call":{}}';
    const ts = Date.now();
    const sig = `v=${ts},d=${createHmac('sha256', 'key_badge')
      .update(body + ts)
      .digest('hex')}`;
    const req = { rawBody: body, headers: { 'x-retell-signature': sig }, url: ctx.callbackUrl };
    expect(retell.verify(req, ctx)).toBe(false);
    expect(retell.verify(req, { ...ctx, webhookSecret: 'key_badge' })).toBe(true);
  });

  it('maps disconnection_reason through the table', async () => {
    const cases: [string, string][] = [
      ['voicemail_reached', 'voicemail'],
      ['dial_no_answer', 'no-answer'],
      ['dial_busy', 'busy'],
      ['dial_failed', 'failed'],
      ['manual_stopped', 'canceled'],
      ['concurrency_limit_reached', 'not-placed'],
      ['error_llm_websocket_open', 'failed'],
    ];
    for (const [reason, outcome] of cases) {
      const id = await placed();
      fake.end(id, { reason });
      await fake.deliver(id, 'call_ended');
      expect({ reason, outcome: receiver.accepted.at(-1)!.events[0]!.outcome }).toEqual({ reason, outcome });
    }
  });
});

describe('retell lookup and stop-call', () => {
  it('looks up an ended (with the analysis), an in-progress and an unknown call', async () => {
    const id = await placed();
    const ref = { attemptId: 'at_3kXq9', providerCallId: id };
    expect(await retell.lookup(ref, ctx, never)).toEqual({ state: 'in-progress' });
    fake.end(id, { reason: 'user_hangup', seconds: 12, analysis: { in_voicemail: true } });
    expect(await retell.lookup(ref, ctx, never)).toEqual({
      state: 'ended',
      outcome: 'voicemail',
      success: false,
      reason: 'user_hangup',
      durationSeconds: 12,
    });
    fake.forget(id);
    expect(await retell.lookup(ref, ctx, never)).toEqual({ state: 'not-found' });
  });

  it('stops an ongoing call; stopping an ended one is no error', async () => {
    const id = await placed();
    fake.start(id);
    await retell.hangUp({ attemptId: 'at_3kXq9', providerCallId: id }, ctx, never);
    expect(fake.http.requests.some((r) => r.method === 'POST' && r.path === `/v2/stop-call/${id}`)).toBe(true);
    expect(fake.calls.get(id)!.call_status).toBe('ended');
    await retell.hangUp({ attemptId: 'at_3kXq9', providerCallId: id }, ctx, never);
  });
});
