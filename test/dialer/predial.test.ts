/** The predial path and the webhook provider against a real local HTTP server. */
import { afterEach, describe, expect, it } from 'vitest';
import { predial } from '../../src/dialer/predial.js';
import { sign } from '../../src/dialer/signed-post.js';
import { freePort } from '../helpers/server-process.js';
import { type Stub, type StubAnswer, startStub } from './http-stub.js';

const SECRET = 'predial-secret-1';
let stub: Stub | undefined;
afterEach(async () => {
  await stub?.close();
  stub = undefined;
});

async function ask(
  answer: StubAnswer | ((r: any) => StubAnswer),
  o: { secret?: string | null; timeoutMs?: number; signal?: AbortSignal } = {},
) {
  stub = await startStub(SECRET, typeof answer === 'function' ? answer : () => answer);
  return predial({
    url: stub.url,
    secret: o.secret === undefined ? SECRET : o.secret,
    leadId: 'ld_1',
    campaignId: 'cp_1',
    externalId: 'crm-42',
    timeoutMs: o.timeoutMs ?? 2000,
    signal: o.signal,
  });
}

describe('predial', () => {
  it('POSTs {leadId, campaignId, externalId}, signed; the server checks the signature and answers the number', async () => {
    const r = await ask((req) =>
      req.signed ? { body: { phoneNumber: '+14155550123' } } : { status: 401, body: { error: 'bad signature' } },
    );
    expect(r).toEqual({ ok: true, phoneNumber: '+14155550123' });
    const [req] = stub!.requests;
    expect(req!.body).toEqual({ leadId: 'ld_1', campaignId: 'cp_1', externalId: 'crm-42' });
    expect(req!.headers['content-type']).toBe('application/json');
    expect(req!.headers['x-leadline-signature']).toBe(sign(req!.raw, SECRET));
    expect(req!.headers['x-leadline-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
  });

  it('a request signed with another secret is refused by the server, and that is a failure with its reason', async () => {
    const r = await ask((req) => (req.signed ? { body: { phoneNumber: '+14155550123' } } : { status: 401, body: {} }), { secret: 'wrong' });
    expect(r).toEqual({ ok: false, reason: 'predial: answered HTTP 401' });
    expect(stub!.requests[0]!.signed).toBe(false);
  });

  it('no secret configured: no signature header', async () => {
    await ask({ body: { phoneNumber: '+14155550123' } }, { secret: null });
    expect(stub!.requests[0]!.headers['x-leadline-signature']).toBeUndefined();
  });

  it('a slow answer is a failure once the timeout passes', async () => {
    const started = Date.now();
    const r = await ask({ body: { phoneNumber: '+14155550123' }, delayMs: 5000 }, { timeoutMs: 200 });
    expect(r).toEqual({ ok: false, reason: 'predial: no answer within 200 ms' });
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it.each([
    ['not E.164', { body: { phoneNumber: '4155550123' } }, 'predial: phoneNumber is not E.164 (a + and 2 to 15 digits, the first not 0)'],
    [
      'leading zero',
      { body: { phoneNumber: '+0123456789' } },
      'predial: phoneNumber is not E.164 (a + and 2 to 15 digits, the first not 0)',
    ],
    ['not a string', { body: { phoneNumber: 14155550123 } }, 'predial: phoneNumber is a number, not an E.164 string'],
    ['no phoneNumber', { body: { name: 'Ada' } }, 'predial: no phoneNumber in the answer'],
    ['empty phoneNumber', { body: { phoneNumber: '' } }, 'predial: no phoneNumber in the answer'],
    ['empty body', { body: '' }, 'predial: empty answer'],
    ['not JSON', { body: '<html>' }, 'predial: answer is not JSON'],
    ['JSON null', { body: 'null' }, 'predial: no phoneNumber in the answer'],
    ['a 500', { status: 500, body: { phoneNumber: '+14155550123' } }, 'predial: answered HTTP 500'],
    ['a redirect, not followed', { status: 302, body: '' }, 'predial: answered HTTP 302'],
  ])('%s is a failure with its reason', async (_name, answer, reason) => {
    expect(await ask(answer as StubAnswer)).toEqual({ ok: false, reason });
  });

  it('nothing listening is a failure with its reason', async () => {
    const r = await predial({
      url: `http://127.0.0.1:${await freePort()}/predial`,
      secret: null,
      leadId: 'l',
      campaignId: 'c',
      externalId: 'x',
      timeoutMs: 1000,
    });
    expect(r).toEqual({ ok: false, reason: 'predial: request failed: ECONNREFUSED' });
  });

  it('an oversized answer is refused', async () => {
    const r = await ask({ body: { phoneNumber: '+14155550123', pad: 'x'.repeat(100_000) } });
    expect(r).toEqual({ ok: false, reason: 'predial: answer larger than 65536 bytes' });
  });
});
