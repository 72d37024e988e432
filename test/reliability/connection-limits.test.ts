/**
 * Each connection limit and timeout of config.server, one at a time, on a
 * listening app with short figures: what the misbehaving socket gets, and
 * that the server is the one that closes it, in time.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Fixture, isEnvelope, makeFixture } from '../helpers/fixture.js';
import { bodyOf, connect } from './sockets.js';

const HEADERS_MS = 600;
const REQUEST_MS = 1200;
const KEEP_ALIVE_MS = 500;
// Node checks head and body deadlines on a sweep (min(1 s, headers/2) here): one sweep plus a busy machine.
const SLACK_MS = 1500;

function expectEnvelopeAnswer(answer: string, status: number): void {
  expect(answer).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
  expect(answer.toLowerCase()).toContain('x-content-type-options: nosniff');
  expect(isEnvelope(bodyOf(answer))).toBe(true);
}

describe('connection limits on a listening server', () => {
  let f: Fixture;
  let port: number;
  const get = (path = `/api/v1/leads?campaignId=${'x'}`) => `GET ${path} HTTP/1.1\r\nHost: t\r\n`;
  beforeAll(async () => {
    f = await makeFixture('sqlite', {
      env: {
        HEADERS_TIMEOUT_MS: String(HEADERS_MS),
        REQUEST_TIMEOUT_MS: String(REQUEST_MS),
        CONNECTION_TIMEOUT_MS: '3000',
        KEEP_ALIVE_TIMEOUT_MS: String(KEEP_ALIVE_MS),
        MAX_REQUESTS_PER_SOCKET: '3',
        MAX_HEADER_SIZE_BYTES: '4096',
        MAX_CONNECTIONS: '40',
      },
    });
    await f.app.listen({ host: '127.0.0.1', port: 0 });
    port = (f.app.server.address() as { port: number }).port;
  });
  afterAll(() => f?.close());

  it('a malformed request: 400 envelope, then closed', async () => {
    const c = await connect(port);
    c.socket.write('GET / HTTP/1.1\r\nHost: t\r\nno colon here\r\n\r\n');
    await c.closed;
    expectEnvelopeAnswer(c.received(), 400);
  });

  it('a head over MAX_HEADER_SIZE_BYTES: 431 envelope', async () => {
    const c = await connect(port);
    c.socket.write(`${get()}x-pad: ${'p'.repeat(5000)}\r\n\r\n`);
    await c.closed;
    expectEnvelopeAnswer(c.received(), 431);
  });

  it('headers dribbled slower than HEADERS_TIMEOUT_MS (slow loris): 408 envelope, closed in time', async () => {
    const c = await connect(port);
    c.dribble(`${get()}x-slow: ${'s'.repeat(200)}\r\n\r\n`, 50);
    const ms = await c.closed;
    expect(ms).toBeGreaterThanOrEqual(HEADERS_MS - 50);
    expect(ms).toBeLessThan(HEADERS_MS + SLACK_MS);
    expectEnvelopeAnswer(c.received(), 408);
  });

  it('a socket that never sends a byte is closed by the headers deadline', async () => {
    const c = await connect(port);
    const ms = await c.closed;
    expect(ms).toBeLessThan(HEADERS_MS + SLACK_MS);
  });

  it('a body that never finishes, even sent byte by byte: 408 envelope at REQUEST_TIMEOUT_MS', async () => {
    const c = await connect(port);
    const head = `POST /api/v1/leads HTTP/1.1\r\nHost: t\r\nx-api-key: ${f.keys.writeA}\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n`;
    c.socket.write(head);
    c.dribble(`{"campaignId":"${f.ids.campaignA}","metadata":{"pad":"${'x'.repeat(900)}"}}`, 40);
    const ms = await c.closed;
    expect(ms).toBeGreaterThanOrEqual(REQUEST_MS - 50);
    expect(ms).toBeLessThan(REQUEST_MS + SLACK_MS);
    expectEnvelopeAnswer(c.received(), 408);
  });

  it('an idle keep-alive socket is closed after KEEP_ALIVE_TIMEOUT_MS', async () => {
    const c = await connect(port);
    c.socket.write(`${get('/api/health')}\r\n`);
    const ms = await c.closed;
    expect(c.received()).toMatch(/^HTTP\/1\.1 200 /);
    expect(c.received()).toMatch(/Keep-Alive: timeout=0/i);
    // Node closes 1 s after the advertised timeout, so that the client gives up on the socket first
    expect(ms).toBeLessThan(KEEP_ALIVE_MS + 1000 + SLACK_MS);
  });

  it('after MAX_REQUESTS_PER_SOCKET requests the socket is told to close', async () => {
    const c = await connect(port);
    for (let i = 0; i < 3; i++) {
      const before = c.received().length;
      c.socket.write(`${get('/api/health')}\r\n`);
      await until(() => /\r\n\r\n\{.*\}$/s.test(c.received().slice(before)));
    }
    await c.closed;
    const answers = c.received().split(/(?=HTTP\/1\.1 )/);
    expect(answers).toHaveLength(3);
    expect(answers[0]!.toLowerCase()).toContain('connection: keep-alive');
    expect(answers[2]!.toLowerCase()).toContain('connection: close');
  });

  it('connections beyond MAX_CONNECTIONS are closed at once; service resumes as the idle ones time out', async () => {
    const idle = await Promise.all(Array.from({ length: 40 }, () => connect(port)));
    const extra = await connect(port);
    extra.socket.write(`${get('/api/health')}\r\n`);
    const ms = await extra.closed;
    expect(ms).toBeLessThan(1000);
    expect(extra.received()).toBe('');
    await Promise.all(idle.map((c) => c.closed)); // the headers deadline frees them
    const res = await fetch(`http://127.0.0.1:${port}/api/health`);
    expect(res.status).toBe(200);
  });
});

async function until(ok: () => boolean, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 10));
  }
}
