/**
 * The dashboard reads only small urlencoded forms, and counts every POST per
 * client IP before reading its body. It used to parse any JSON body up to
 * 4 MiB before any session or CSRF check: eight posts of a 2,000,000-deep
 * `[[[…]]]` to /dashboard/login blocked the event loop for 16-18 s.
 */
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Fixture, makeFixture } from '../helpers/fixture.js';
import { partialPost } from './raw-http.js';

const DEPTH = 2_000_000;
const deep = '['.repeat(DEPTH) + ']'.repeat(DEPTH);

async function listen(f: Fixture): Promise<number> {
  await f.app.listen({ port: 0, host: '127.0.0.1' });
  return (f.app.server.address() as AddressInfo).port;
}

describe('dashboard request bodies', () => {
  let f: Fixture;
  let port: number;
  beforeAll(async () => {
    f = await makeFixture('sqlite');
    port = await listen(f);
  });
  afterAll(() => f?.close());
  afterEach(() => vi.restoreAllMocks());

  it('eight 2,000,000-deep JSON bodies to /dashboard/login are 415 pages, never parsed, and /api/health answers meanwhile', async () => {
    const parse = vi.spyOn(JSON, 'parse');
    const posts = Array.from({ length: 8 }, () =>
      f.app.inject({ method: 'POST', url: '/dashboard/login', headers: { 'content-type': 'application/json' }, payload: deep }),
    );
    const health = f.app.inject({ method: 'GET', url: '/api/health' });
    const answers = await Promise.all(posts);
    expect((await health).statusCode).toBe(200);
    for (const res of answers) {
      expect(res.statusCode).toBe(415);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.body).toContain('The dashboard accepts only forms sent by its own pages.');
    }
    // Nothing of that size ever reached a JSON parser.
    expect(parse.mock.calls.filter(([text]) => typeof text === 'string' && text.length > 1000)).toEqual([]);
  });

  it.each(['application/json', 'text/plain', 'multipart/form-data; boundary=x', 'application/octet-stream'])(
    '%s is refused before its body is read: the answer comes while the body is still unsent',
    async (type) => {
      const res = await partialPost(port, '/dashboard/login', { 'content-type': type }, deep.length, deep.slice(0, 64 * 1024));
      expect(res.status).toBe(415);
      // and the health check answers while that socket is still open
      expect((await fetch(`http://127.0.0.1:${port}/api/health`)).status).toBe(200);
    },
  );

  it('a form declared over 64 KiB is a 413 page, refused before its body is read', async () => {
    const res = await partialPost(
      port,
      '/dashboard/login',
      { 'content-type': 'application/x-www-form-urlencoded' },
      64 * 1024 + 1,
      'email=a',
    );
    expect(res.status).toBe(413);
    expect(res.body).toContain('A form may be at most 64 KiB.');
  });

  it('a urlencoded form is still read (and refused here for its missing CSRF token)', async () => {
    const res = await f.app.inject({
      method: 'POST',
      url: '/dashboard/login',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'email=a%40b.example&password=x',
    });
    expect(res.statusCode).toBe(403);
  });
});

describe('dashboard POSTs are counted per client IP before their bodies are read', () => {
  const LIMIT = 3;
  let f: Fixture;
  let port: number;
  beforeAll(async () => {
    f = await makeFixture('sqlite', { rateLimit: { ipPerMinute: LIMIT } });
    port = await listen(f);
  });
  afterAll(() => f?.close());

  it(`the first ${LIMIT} are answered, the next is a 429 page before its body arrives; GETs and other addresses are unaffected`, async () => {
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    for (let i = 0; i < LIMIT; i++) {
      const res = await partialPost(port, '/dashboard/login', form, 'email=x'.length, 'email=x');
      expect(res.status, `post ${i + 1}`).toBe(403); // read, then refused for its missing CSRF token
    }
    const refused = await partialPost(port, '/dashboard/login', form, 60 * 1024, 'email=x');
    expect(refused.status).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.body).toContain('Too many requests from your address.');
    // a JSON post from the same address is refused just as early, by the count, not the parser
    expect((await partialPost(port, '/dashboard/login', { 'content-type': 'application/json' }, deep.length, '[[[')).status).toBe(429);

    expect((await fetch(`http://127.0.0.1:${port}/dashboard/login`)).status).toBe(200);
    const elsewhere = await f.app.inject({
      method: 'POST',
      url: '/dashboard/login',
      remoteAddress: '10.9.9.9',
      headers: form,
      payload: 'email=x',
    });
    expect(elsewhere.statusCode).toBe(403);
  });
});
