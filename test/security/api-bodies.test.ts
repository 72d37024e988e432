/**
 * API bodies refused for their size or depth: answered before any parse, and
 * never charged to the key's rate limits (on the memory and Redis limiters).
 * A deep body used to cost ~2.4 s of CPU per 4 MiB, and a 413 counted
 * against the key's bulk window.
 */
import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryRateLimiter } from '../../src/ratelimit/memory.js';
import { RedisRateLimiter } from '../../src/ratelimit/redis.js';
import type { RateLimiter } from '../../src/ratelimit/types.js';
import { type Clock, type Fixture, makeFixture } from '../helpers/fixture.js';
import { REDIS_URL, serviceAvailable } from '../helpers/services.js';

const BODY_LIMIT = 8192;
const BULK_PER_MINUTE = 2;
const DEPTH_MESSAGE = 'Request body is nested deeper than 64 levels of arrays and objects';

/** fails loudly instead of quietly answering for Redis */
const noFallback: RateLimiter = {
  hit: async () => {
    throw new Error('fallback used: Redis did not answer');
  },
  refund: async () => {
    throw new Error('fallback used: Redis did not answer');
  },
  close: async () => {},
};

const limiters: [string, ((clock: Clock) => RateLimiter) | null][] = [
  ['memory', (clock) => new MemoryRateLimiter({ now: () => clock.now })],
  [
    'redis',
    (await serviceAvailable('redis'))
      ? (clock) =>
          new RedisRateLimiter({
            url: REDIS_URL,
            fallback: noFallback,
            keyPrefix: `test:api-bodies:${randomUUID()}:`,
            now: () => clock.now,
            timeoutMs: 2000,
          })
      : null,
  ],
];

describe.each(limiters)('API bodies refused for size or depth, %s limiter', (_name, makeLimiter) => {
  let f: Fixture;
  let port: number;
  beforeAll(async () => {
    if (!makeLimiter) return;
    f = await makeFixture('sqlite', {
      rateLimit: { bulkPerMinute: BULK_PER_MINUTE },
      env: { BODY_LIMIT_BYTES: String(BODY_LIMIT) },
      limiter: makeLimiter,
    });
    if (f.limiter instanceof RedisRateLimiter) expect(await f.limiter.ready(2000)).toBe(true);
    await f.app.listen({ port: 0, host: '127.0.0.1' });
    port = (f.app.server.address() as AddressInfo).port;
  });
  afterAll(() => f?.close());

  /** a fresh key each test, so each starts with a full bulk window */
  const freshKey = async () => {
    const { createKey } = await import('../../src/auth/service.js');
    return (await createKey(f.db, { companyId: f.ids.companyA, name: 'bodies', scope: 'write' })).key;
  };
  const bulk = (key: string, body: unknown, headers: Record<string, string> = {}) =>
    f.request('POST', '/api/v1/leads/bulk', { key, body, headers: { 'content-type': 'application/json', ...headers } });
  let phone = 14155550000;
  const validBulk = () => ({ campaignId: f.ids.campaignA, leads: [{ phoneNumber: `+${phone++}` }] });

  /** the key's bulk window still has all its room: exactly BULK_PER_MINUTE more are admitted */
  async function expectWholeBulkWindow(key: string) {
    for (let left = BULK_PER_MINUTE - 1; left >= 0; left--) {
      const res = await bulk(key, validBulk());
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.headers['x-ratelimit-remaining']).toBe(String(left));
    }
    expect((await bulk(key, validBulk())).status).toBe(429);
  }

  it.skipIf(!makeLimiter)('a body nested past 64 is a 400 naming the limit, and costs the key nothing', async () => {
    const key = await freshKey();
    const deep = `{"campaignId":"${f.ids.campaignA}","leads":[{"phoneNumber":"+14155550100","metadata":{"a":${'['.repeat(3000)}${']'.repeat(3000)}}}]}`;
    for (let i = 0; i < BULK_PER_MINUTE + 3; i++) {
      const res = await bulk(key, deep);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ success: false, data: null, error: DEPTH_MESSAGE });
      expect(res.headers['x-ratelimit-remaining']).toBe(String(BULK_PER_MINUTE));
    }
    await expectWholeBulkWindow(key);
  });

  it.skipIf(!makeLimiter)(
    'a declared Content-Length over the limit is a 413 that costs the key nothing, with its window in the headers',
    async () => {
      const key = await freshKey();
      const big = JSON.stringify({ ...validBulk(), pad: 'x'.repeat(BODY_LIMIT) });
      for (let i = 0; i < BULK_PER_MINUTE + 3; i++) {
        const res = await bulk(key, big);
        expect(res.status).toBe(413);
        expect(res.body.error).toBe(`Request body is larger than ${BODY_LIMIT} bytes`);
        expect(res.headers['x-ratelimit-limit']).toBe(String(BULK_PER_MINUTE));
        expect(res.headers['x-ratelimit-remaining']).toBe(String(BULK_PER_MINUTE));
        expect(Number(res.headers['x-ratelimit-reset'])).toBeGreaterThan(0);
      }
      await expectWholeBulkWindow(key);
      // the window now full: still the 413, its headers saying so
      const full = await bulk(key, big);
      expect(full.status).toBe(413);
      expect(full.headers['x-ratelimit-remaining']).toBe('0');
      expect(full.headers['retry-after']).toBeUndefined();
    },
  );

  it.skipIf(!makeLimiter)('a chunked body that grows past the limit is a 413, and its counted hit is refunded', async () => {
    const key = await freshKey();
    const chunked = () =>
      new Promise<number>((resolve, reject) => {
        // No Content-Length: the size is only known once the body is read, after counting.
        const req = httpRequest(
          {
            port,
            host: '127.0.0.1',
            method: 'POST',
            path: '/api/v1/leads/bulk',
            headers: { 'x-api-key': key, 'content-type': 'application/json' },
          },
          (res) => {
            res.resume();
            resolve(res.statusCode!);
          },
        );
        req.on('error', (err) =>
          (err as NodeJS.ErrnoException).code === 'EPIPE' || (err as NodeJS.ErrnoException).code === 'ECONNRESET' ? undefined : reject(err),
        );
        req.write(`{"campaignId":"${f.ids.campaignA}","pad":"`);
        for (let i = 0; i < 4; i++) req.write('x'.repeat(4096));
        req.end('"}');
      });
    for (let i = 0; i < BULK_PER_MINUTE + 3; i++) expect(await chunked()).toBe(413);
    await expectWholeBulkWindow(key);
  });

  it.skipIf(!makeLimiter)('the order of checks holds: 401 before 413; a 400 from validation still counts', async () => {
    const big = 'x'.repeat(BODY_LIMIT + 1);
    expect((await bulk('', big)).status).toBe(401);
    expect((await bulk('ll_not_a_key', big)).status).toBe(401);
    const key = await freshKey();
    const invalid = await bulk(key, { campaignId: f.ids.campaignA, leads: 'nope' });
    expect(invalid.status).toBe(400);
    expect(invalid.headers['x-ratelimit-remaining']).toBe(String(BULK_PER_MINUTE - 1));
  });
});

describe('a declared Content-Length over the limit, with a rate limiter that fails', () => {
  it('is still the 413, without the headers it could not learn', async () => {
    const f = await makeFixture('sqlite', { env: { BODY_LIMIT_BYTES: String(BODY_LIMIT) }, limiter: () => noFallback });
    try {
      const res = await f.request('POST', '/api/v1/leads/bulk', {
        body: JSON.stringify({ campaignId: f.ids.campaignA, pad: 'x'.repeat(BODY_LIMIT) }),
        headers: { 'content-type': 'application/json' },
      });
      expect(res.status).toBe(413);
      expect(res.body).toEqual({ success: false, data: null, error: `Request body is larger than ${BODY_LIMIT} bytes` });
      expect(res.headers['x-ratelimit-limit']).toBeUndefined();
    } finally {
      await f.close();
    }
  });
});
