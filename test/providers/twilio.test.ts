/** The Twilio adapter against the local Twilio fake (test/fakes/twilio.ts). */
import { createHmac } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { formParams, signature, twilio } from '../../src/dialer/providers/platforms/twilio.js';
import type { PlatformContext } from '../../src/dialer/providers/platforms/types.js';
import { deliver } from '../fakes/base.js';
import { TwilioFake } from '../fakes/twilio.js';
import { closedPortUrl } from './closed-port.js';
import { callRequest, context, decide, never, type Receiver, startReceiver } from './support.js';

const SID = `AC${'1f'.repeat(16)}`;
const TOKEN = 'twilio-auth-token-1';
const OPTIONS = { accountSid: SID, from: '+14155550100', url: 'https://agent.example.com/twiml?voice=alice' };
let fake: TwilioFake;
let receiver: Receiver;
let ctx: PlatformContext;

beforeEach(async () => {
  fake = await TwilioFake.start({ accountSid: SID, authToken: TOKEN });
  receiver = await startReceiver(twilio, () => ctx);
  ctx = context({ secret: TOKEN, baseUrl: fake.baseUrl, options: OPTIONS, callbackUrl: receiver.callbackUrl('at_3kXq9') });
});
afterEach(async () => {
  await fake.close();
  await receiver.close();
});

async function placed() {
  const r = await twilio.place(callRequest(), ctx, never);
  if (r.kind !== 'accepted') throw new Error(`not accepted: ${JSON.stringify(r)}`);
  return r.providerCallId!;
}

describe('twilio options', () => {
  it('takes accountSid, from (E.164) and url, all required and checked', () => {
    expect(twilio.parseOptions(OPTIONS)).toEqual(OPTIONS);
    expect(() => twilio.parseOptions({ ...OPTIONS, accountSid: 'SK123' })).toThrow(/accountSid must be the 34-character Account SID/);
    expect(() => twilio.parseOptions({ ...OPTIONS, from: '4155550100' })).toThrow(/from must be an E.164/);
    expect(() => twilio.parseOptions({ ...OPTIONS, url: '/twiml' })).toThrow(/url must be an absolute URL/);
    expect(() => twilio.parseOptions({ accountSid: SID, from: '+14155550100' })).toThrow(/missing --provider-option url/);
    expect(() => twilio.parseOptions({ ...OPTIONS, applicationSid: 'AP1' })).toThrow(/unknown --provider-option "applicationSid"/);
  });
});

describe('twilio create call', () => {
  it('sends one form-encoded POST with Basic auth, To/From/Url, the status callback with its events, and the variables in Url', async () => {
    const sid = await placed();
    const [req, ...more] = fake.creates();
    expect(more).toHaveLength(0);
    expect(req!.path).toBe(`/2010-04-01/Accounts/${SID}/Calls.json`);
    expect(req!.headers.authorization).toBe(`Basic ${Buffer.from(`${SID}:${TOKEN}`).toString('base64')}`);
    expect(req!.headers['content-type']).toBe('application/x-www-form-urlencoded');
    const p = new URLSearchParams(req!.raw);
    expect(p.get('To')).toBe('+14155550123');
    expect(p.get('From')).toBe('+14155550100');
    expect(p.get('StatusCallback')).toBe(ctx.callbackUrl);
    expect(p.get('StatusCallbackMethod')).toBe('POST');
    expect(p.getAll('StatusCallbackEvent')).toEqual(['initiated', 'ringing', 'answered', 'completed']);
    expect([p.get('MachineDetection'), p.get('AsyncAmd'), p.get('AsyncAmdStatusCallback')]).toEqual(['Enable', 'true', ctx.callbackUrl]);
    const app = new URL(p.get('Url')!);
    expect(app.origin + app.pathname).toBe('https://agent.example.com/twiml');
    expect(Object.fromEntries(app.searchParams)).toEqual({
      voice: 'alice',
      name: 'Ada',
      plan: 'pro',
      score: '7',
      tags: '["a","b"]',
      leadId: 'ld_7Hd2',
      attemptId: 'at_3kXq9',
      externalId: 'crm-42',
    });
    expect(fake.calls.has(sid)).toBe(true);
  });

  it('20429 and a wrong token are not placed; an invalid To (21211) is failed; a reset or a timeout is unknown; a refused connection is not placed', async () => {
    fake.refuseNextCreate({ 'retry-after': '1' });
    expect(await twilio.place(callRequest(), ctx, never)).toMatchObject({
      kind: 'not-placed',
      retryAfterMs: 1000,
      reason: expect.stringContaining('Too Many Requests'),
    });
    expect((await twilio.place(callRequest(), { ...ctx, secret: 'nope' }, never)).kind).toBe('not-placed');
    expect(await twilio.place(callRequest({ phoneNumber: '0123' }), ctx, never)).toMatchObject({
      kind: 'finished',
      outcome: 'failed',
      reason: expect.stringContaining("Invalid 'To' Phone Number"),
    });
    fake.next('reset');
    expect((await twilio.place(callRequest(), ctx, never)).kind).toBe('unknown');
    fake.next('hang');
    expect((await twilio.place(callRequest(), { ...ctx, timeoutMs: 300 }, never)).kind).toBe('unknown');
    expect((await twilio.place(callRequest(), { ...ctx, baseUrl: await closedPortUrl() }, never)).kind).toBe('not-placed');
    expect(fake.creates()).toHaveLength(5);
  });
});

describe('twilio status callbacks', () => {
  it('only a final CallStatus is terminal; duplicates and late callbacks never change the first outcome; the AMD verdict is progress', async () => {
    const sid = await placed();
    fake.setStatus(sid, 'ringing');
    await fake.deliver(sid);
    fake.setStatus(sid, 'in-progress', { answeredBy: 'human' });
    await fake.deliver(sid, { amd: true });
    await fake.deliver(sid);
    fake.setStatus(sid, 'completed', { duration: 75 });
    const completed = fake.webhook(sid);
    for (let i = 0; i < 2; i++) await deliver(completed.url, completed.headers, completed.body); // a retried delivery
    fake.setStatus(sid, 'ringing'); // a late, out-of-order callback
    await fake.deliver(sid);
    const events = receiver.accepted.flatMap((a) => a.events);
    expect(events.map((e) => [e.terminal, e.progress ?? e.outcome])).toEqual([
      [false, 'ringing'],
      [false, 'answered-by-human'],
      [false, 'in-progress'],
      [true, 'answered'],
      [true, 'answered'],
      [false, 'ringing'],
    ]);
    expect(decide(events)).toEqual({
      providerCallId: sid,
      attemptId: 'at_3kXq9',
      terminal: true,
      outcome: 'answered',
      success: true,
      reason: 'completed, answered by human',
      durationSeconds: 75,
    });
  });

  it('maps CallStatus, and AnsweredBy on a completed call', async () => {
    const cases: [string, string | undefined, string][] = [
      ['busy', undefined, 'busy'],
      ['no-answer', undefined, 'no-answer'],
      ['failed', undefined, 'failed'],
      ['canceled', undefined, 'canceled'],
      ['completed', 'machine_end_beep', 'voicemail'],
      ['completed', 'unknown', 'answered'],
      ['completed', 'fax', 'failed'],
    ];
    for (const [status, answeredBy, outcome] of cases) {
      const sid = await placed();
      fake.setStatus(sid, status, { answeredBy });
      await fake.deliver(sid);
      expect({ status, answeredBy, outcome: receiver.accepted.at(-1)!.events[0]!.outcome }).toEqual({ status, answeredBy, outcome });
    }
  });

  it('a wrong token, a tampered body, a missing header or another URL gets 401', async () => {
    const sid = await placed();
    fake.setStatus(sid, 'completed');
    expect((await fake.deliver(sid, { token: 'other' })).status).toBe(401);
    expect((await fake.deliver(sid, { tamper: true })).status).toBe(401);
    expect((await fake.deliver(sid, { unsigned: true })).status).toBe(401);
    const w = fake.webhook(sid);
    expect(
      twilio.verify(
        { rawBody: w.body, headers: { 'x-twilio-signature': w.headers['x-twilio-signature'] }, url: w.url.replace('at_3kXq9', 'at_other') },
        ctx,
      ),
    ).toBe(false);
    expect(receiver.accepted).toHaveLength(0);
  });

  it("matches Twilio's published example, and a URL signed with or without its default port", () => {
    // TwilioDevEd/api-snippets security/signature_validation: token 12345, this URL and these parameters.
    const body = 'CallSid=CA1234567890ABCDE&Caller=%2B14158675310&Digits=1234&From=%2B14158675310&To=%2B18005551212';
    const url = 'https://mycompany.com/myapp.php?foo=1&bar=2';
    const c = { ...ctx, secret: '12345' };
    expect(signature('12345', url, formParams(body))).toBe('GvWf1cFY/Q7PnoempGyD5oXAezc=');
    expect(twilio.verify({ rawBody: body, headers: { 'x-twilio-signature': 'GvWf1cFY/Q7PnoempGyD5oXAezc=' }, url }, c)).toBe(true);
    const withPort = createHmac('sha1', '12345')
      .update(
        `https://mycompany.com:443/myapp.php?foo=1&bar=2${'CallSidCA1234567890ABCDECaller+14158675310Digits1234From+14158675310To+18005551212'}`,
      )
      .digest('base64');
    expect(twilio.verify({ rawBody: body, headers: { 'x-twilio-signature': withPort }, url }, c)).toBe(true);
  });
});

describe('twilio lookup and hang-up', () => {
  it('looks up an in-progress, an ended (answered by a machine) and an unknown call', async () => {
    const sid = await placed();
    const ref = { attemptId: 'at_3kXq9', providerCallId: sid };
    fake.setStatus(sid, 'in-progress');
    expect(await twilio.lookup(ref, ctx, never)).toEqual({ state: 'in-progress' });
    fake.setStatus(sid, 'completed', { duration: 20, answeredBy: 'machine_start' });
    expect(await twilio.lookup(ref, ctx, never)).toEqual({
      state: 'ended',
      outcome: 'voicemail',
      success: false,
      reason: 'completed, answered by machine_start',
      durationSeconds: 20,
    });
    fake.forget(sid);
    expect(await twilio.lookup(ref, ctx, never)).toEqual({ state: 'not-found' });
  });

  it('cancels a call not yet answered, completes one in progress, and leaves an ended one alone', async () => {
    const queued = await placed();
    await twilio.hangUp({ attemptId: 'a', providerCallId: queued }, ctx, never);
    expect(fake.calls.get(queued)!.status).toBe('canceled');
    const live = await placed();
    fake.setStatus(live, 'in-progress');
    await twilio.hangUp({ attemptId: 'b', providerCallId: live }, ctx, never);
    expect(fake.calls.get(live)!.status).toBe('completed');
    const updates = () =>
      fake.http.requests.filter((r) => r.method === 'POST' && /\/Calls\/CA[0-9a-f]+\.json$/.test(r.path)).map((r) => r.raw);
    expect(updates()).toEqual(['Status=canceled', 'Status=completed']);
    await twilio.hangUp({ attemptId: 'b', providerCallId: live }, ctx, never);
    expect(updates()).toHaveLength(2);
  });
});
