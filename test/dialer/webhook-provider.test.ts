/**
 * The webhook call provider against a real local receiver: the request (the
 * attemptId in the body and as Idempotency-Key, signed), and what each answer
 * means: the call is over, accepted for later, never placed, or unknown.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { webhookProvider } from '../../src/dialer/providers/webhook.js';
import { closedPortUrl } from '../providers/closed-port.js';
import { type Stub, type StubAnswer, startStub } from './http-stub.js';

const SECRET = 'webhook-secret-1';
const request = {
  attemptId: 'at_x1',
  leadId: 'ld_1',
  campaignId: 'cp_1',
  phoneNumber: '+14155550123',
  externalId: null,
  metadata: { name: 'Ada' },
  attempt: 2,
};
let stub: Stub | undefined;
afterEach(async () => {
  await stub?.close();
  stub = undefined;
});

const place = async (answer: StubAnswer, timeoutMs = 2000, signal = new AbortController().signal) => {
  stub = await startStub(SECRET, () => answer);
  return webhookProvider({ url: stub.url, secret: SECRET, timeoutMs }).place(request, signal);
};

describe('the webhook provider', () => {
  it('POSTs the call with its attemptId, as Idempotency-Key too, signed both ways', async () => {
    expect(await place({ body: { success: true, outcome: 'answered', durationSeconds: 42 } })).toEqual({
      kind: 'finished',
      success: true,
      outcome: 'answered',
      durationSeconds: 42,
    });
    const [req] = stub!.requests;
    expect(req!.body).toEqual(request);
    expect(req!.headers['idempotency-key']).toBe('at_x1');
    expect(req!.signed).toBe(true);
    expect(req!.headers['webhook-signature']).toMatch(/^v1,/);
    expect(req!.headers['webhook-id']).toBe('at_x1');
  });

  it('a finished call with its reason', async () => {
    expect(await place({ body: { success: false, outcome: 'busy', reason: 'line busy' } })).toEqual({
      kind: 'finished',
      success: false,
      outcome: 'busy',
      reason: 'line busy',
    });
  });

  it('202 {"accepted": true}: the call was placed and its outcome comes later', async () => {
    expect(await place({ status: 202, body: { accepted: true, callId: 'call-7' } })).toEqual({
      kind: 'accepted',
      providerCallId: 'call-7',
    });
    expect(await place({ status: 202, body: { accepted: true } })).toEqual({ kind: 'accepted', providerCallId: null });
  });

  it.each([
    ['a 503', { status: 503, body: {} }, 'webhook: answered HTTP 503'],
    ['a 500', { status: 500, body: 'oops' }, 'webhook: answered HTTP 500'],
  ])('%s: not placed, no attempt spent', async (_name, answer, reason) => {
    expect(await place(answer)).toEqual({ kind: 'not-placed', reason });
  });

  it('a 429 is not placed, and its Retry-After is kept', async () => {
    const r = await place({ status: 429, body: {} });
    expect(r).toMatchObject({ kind: 'not-placed', reason: 'webhook: answered HTTP 429' });
  });

  it('a refused connection: not placed', async () => {
    const r = await webhookProvider({ url: `${await closedPortUrl()}/hook`, secret: SECRET, timeoutMs: 2000 }).place(
      request,
      new AbortController().signal,
    );
    expect(r).toMatchObject({ kind: 'not-placed' });
  });

  it('another 4xx: the receiver refused this call, a failed attempt', async () => {
    expect(await place({ status: 422, body: {} })).toEqual({
      kind: 'finished',
      success: false,
      outcome: 'failed',
      reason: 'webhook: refused the call with HTTP 422',
    });
  });

  it.each([
    ['a timeout', { body: { success: true, outcome: 'answered' }, delayMs: 3000 }, 200, /^webhook: no answer within 200 ms$/],
    ['a wrong shape', { body: { success: 'yes', outcome: 'answered' } }, 2000, /not \{"success", "outcome"\}/],
    ['an empty 200', { body: '' }, 2000, /not \{"success", "outcome"\}/],
  ])('%s: it may have been placed, so the outcome is awaited (never re-sent)', async (_name, answer, timeoutMs, reason) => {
    const r = await place(answer, timeoutMs);
    expect(r.kind).toBe('unknown');
    expect(r.kind === 'unknown' && r.reason).toMatch(reason);
  });

  it('a call aborted while the receiver holds it: unknown, awaited', async () => {
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 100);
    expect(await place({ body: { success: true, outcome: 'answered' }, delayMs: 3000 }, 5000, ac.signal)).toMatchObject({
      kind: 'unknown',
    });
  });
});
