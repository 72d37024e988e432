/** The default HttpRequester against real local servers: the `sent` flag, deadlines, aborts, the size cap, redirects. */
import { afterEach, describe, expect, it } from 'vitest';
import { createHttpRequester, defaultHttpRequester } from '../../src/net/http.js';
import { OutboundPolicy, parseOutboundAllow } from '../../src/net/outbound.js';
import { withDefaultPolicy } from '../dialer/http-stub.js';
import { FakeHttp, type FakeReply, type FakeRequest } from '../fakes/base.js';
import { closedPortUrl } from './closed-port.js';

const local = new OutboundPolicy(parseOutboundAllow('127.0.0.0/8'));
const request = createHttpRequester({ outbound: local });

const servers: FakeHttp[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
async function server(route: (r: FakeRequest) => FakeReply = () => ({ status: 200, body: { ok: true } })) {
  const s = await FakeHttp.start(route);
  servers.push(s);
  return s;
}

describe('the requester', () => {
  it('goes only where the outbound policy allows: by default not to loopback, and says so without sending anything', async () => {
    const s = await server();
    const a = await withDefaultPolicy(() =>
      defaultHttpRequester({ method: 'POST', url: `${s.url}/call`, headers: {}, body: '{}', timeoutMs: 2000 }),
    );
    expect(a).toEqual({
      ok: false,
      reason: expect.stringMatching(/^refused by the outbound policy: 127\.0\.0\.1 is .*OUTBOUND_ALLOW/),
      sent: false,
    });
    expect(s.requests).toHaveLength(0);
  });

  it('sends the method, headers and body once and returns status, lower-case headers and text', async () => {
    const s = await server(() => ({ status: 201, headers: { 'X-Thing': 'a' }, body: { id: 'c1' } }));
    const a = await request({
      method: 'POST',
      url: `${s.url}/call`,
      headers: { 'content-type': 'application/json' },
      body: '{"x":1}',
      timeoutMs: 2000,
    });
    expect(a).toMatchObject({ ok: true, status: 201, text: '{"id":"c1"}' });
    expect(a.ok && a.headers['x-thing']).toBe('a');
    expect(s.requests).toHaveLength(1);
    expect(s.requests[0]).toMatchObject({ method: 'POST', path: '/call', raw: '{"x":1}' });
    expect(s.requests[0]!.headers['content-length']).toBe('7');
  });

  it('a refused connection was not sent', async () => {
    const a = await request({ method: 'POST', url: `${await closedPortUrl()}/call`, headers: {}, body: '{}', timeoutMs: 2000 });
    expect(a).toEqual({ ok: false, reason: 'request failed: ECONNREFUSED', sent: false });
  });

  it('no answer by the deadline after connecting may have been sent', async () => {
    const s = await server();
    s.next('hang');
    expect(await request({ method: 'POST', url: s.url, headers: {}, body: '{}', timeoutMs: 200 })).toEqual({
      ok: false,
      reason: 'no answer within 200 ms',
      sent: true,
    });
  });

  it('a connection reset after the request may have been sent', async () => {
    const s = await server();
    s.next('reset');
    const a = await request({ method: 'POST', url: s.url, headers: {}, body: '{}', timeoutMs: 2000 });
    expect(a).toMatchObject({ ok: false, sent: true });
  });

  it('an abort before sending was not sent; an abort while waiting may have been', async () => {
    const s = await server();
    const early = new AbortController();
    early.abort();
    expect(await request({ method: 'GET', url: s.url, headers: {}, timeoutMs: 2000, signal: early.signal })).toEqual({
      ok: false,
      reason: 'aborted before sending',
      sent: false,
    });
    expect(s.requests).toHaveLength(0);
    s.next('hang');
    const late = new AbortController();
    const pending = request({ method: 'GET', url: s.url, headers: {}, timeoutMs: 5000, signal: late.signal });
    while (s.requests.length === 0) await new Promise((r) => setTimeout(r, 5));
    late.abort();
    expect(await pending).toEqual({ ok: false, reason: 'aborted', sent: true });
  });

  it('an answer over the size cap is refused', async () => {
    const s = await server(() => ({ status: 200, body: 'x'.repeat(5000) }));
    const a = await createHttpRequester({ maxAnswerBytes: 1000, outbound: local })({
      method: 'GET',
      url: s.url,
      headers: {},
      timeoutMs: 2000,
    });
    expect(a).toEqual({ ok: false, reason: 'answer larger than 1000 bytes', sent: true });
  });

  it('follows no redirect: a 3xx is returned as it is', async () => {
    const target = await server();
    const s = await server(() => ({ status: 307, headers: { location: `${target.url}/call` } }));
    const a = await request({ method: 'POST', url: s.url, headers: {}, body: '{}', timeoutMs: 2000 });
    expect(a).toMatchObject({ ok: true, status: 307 });
    expect(target.requests).toHaveLength(0);
  });

  it('refuses other schemes and malformed URLs without sending', async () => {
    expect(await request({ method: 'GET', url: 'file:///etc/passwd', headers: {}, timeoutMs: 100 })).toMatchObject({
      ok: false,
      sent: false,
    });
    expect(await request({ method: 'GET', url: 'not a url', headers: {}, timeoutMs: 100 })).toMatchObject({ ok: false, sent: false });
  });
});
