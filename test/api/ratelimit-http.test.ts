/**
 * Rate limits over HTTP with small figures and the injected clock.
 * docs/api.md docs/api.md "Rate limits" and "Order of checks".
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createKey } from '../../src/auth/service.js';
import { availableStores } from '../helpers/db.js';
import { type Fixture, makeFixture, type Reply } from '../helpers/fixture.js';
import { expectRateHeaders, ok, phone, PREFIXES } from './support.js';

const LIMITS = { perMinute: 5, perHour: 8, bulkPerMinute: 2, ipPerMinute: 3 };
const MESSAGE = 'Rate limit exceeded. Please try again later.';

function expect429(res: Reply, limit: number): number {
  expect(res.status).toBe(429);
  expect(res.body).toEqual({
    success: false,
    data: null,
    error: MESSAGE,
    limit,
    remaining: 0,
    reset: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/),
  });
  expect(Object.keys(res.body).sort()).toEqual(['data', 'error', 'limit', 'remaining', 'reset', 'success']);
  expectRateHeaders(res);
  expect(Number(res.headers['x-ratelimit-limit'])).toBe(limit);
  expect(Number(res.headers['x-ratelimit-remaining'])).toBe(0);
  const retry = String(res.headers['retry-after']);
  expect(retry).toMatch(/^\d+$/);
  expect(Number(retry)).toBeGreaterThanOrEqual(1);
  return Number(retry);
}

describe.each(await availableStores())('rate limits over HTTP on %s', (kind) => {
  let f: Fixture;
  beforeAll(async () => {
    f = await makeFixture(kind, { rateLimit: LIMITS });
  });
  afterAll(() => f.close());
  // every test starts with every window empty (keys, IP, health)
  beforeEach(() => f.clock.advance(2 * 3600_000));

  const freshKey = async (scope: 'read' | 'write' = 'write') =>
    (await createKey(f.db, { companyId: f.ids.companyA, name: 'rl', scope })).key;
  const list = (key: string, prefix: string = PREFIXES[0]) => f.request('GET', prefix, { key, query: { campaignId: f.ids.campaignA } });
  const bulk = (key: string, prefix: string = PREFIXES[0]) =>
    f.request('POST', `${prefix}/bulk`, { key, body: { campaignId: f.ids.campaignA, leads: [{ phoneNumber: phone() }] } });

  it('the 6th non-bulk call in a minute is a 429 with the spec body and Retry-After; retrying after it succeeds', async () => {
    const key = await freshKey();
    const remaining: number[] = [];
    for (let i = 0; i < 5; i++) {
      const res = i % 2 ? await list(key, PREFIXES[1]) : await list(key);
      ok(res);
      expect(Number(res.headers['x-ratelimit-limit'])).toBe(5);
      remaining.push(Number(res.headers['x-ratelimit-remaining']));
      f.clock.advance(1000);
    }
    expect(remaining).toEqual([4, 3, 2, 1, 0]);
    const refused = await list(key);
    const retry = expect429(refused, 5);
    // the first call was 5 s ago: the window frees up 55 s from now
    expect(retry).toBe(55);
    const reset = Number(refused.headers['x-ratelimit-reset']);
    expect(reset).toBe(Math.ceil((f.clock.now + retry * 1000) / 1000));
    expect(Date.parse(refused.body.reset)).toBe(reset * 1000);
    // any endpoint, any prefix: still refused just before Retry-After
    f.clock.advance(retry * 1000 - 1);
    expect429(await f.request('POST', PREFIXES[1], { key, body: { campaignId: f.ids.campaignA, phoneNumber: phone() } }), 5);
    f.clock.advance(1);
    ok(await list(key));
  });

  it('a refused request is not counted, and a 429 comes before scope and validation', async () => {
    const key = await freshKey('read');
    for (let i = 0; i < 5; i++) ok(await list(key));
    for (let i = 0; i < 3; i++) {
      // a read key on a write endpoint with an invalid body: still 429, not 403/400
      expect429(await f.request('POST', PREFIXES[0], { key, body: { nonsense: true } }), 5);
    }
    f.clock.advance(60_000);
    // 3 refused calls did not eat the next window's budget
    for (let i = 0; i < 3; i++) ok(await list(key));
  });

  it('the window slides: at no point are more than 5 calls admitted within any minute', async () => {
    const key = await freshKey();
    const t0 = f.clock.now;
    for (let i = 0; i < 3; i++) ok(await list(key)); // t0
    f.clock.now = t0 + 30_000;
    for (let i = 0; i < 2; i++) ok(await list(key)); // t0+30s
    f.clock.now = t0 + 59_999;
    expect429(await list(key), 5);
    f.clock.now = t0 + 60_000; // the 3 calls of t0 leave; the 2 of t0+30s remain
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await list(key)).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
  });

  it('bulk calls have their own 2-per-minute window, apart from the non-bulk one', async () => {
    const key = await freshKey();
    const a = await bulk(key);
    ok(a);
    expect(Number(a.headers['x-ratelimit-limit'])).toBe(2);
    expect(Number(a.headers['x-ratelimit-remaining'])).toBe(1);
    const b = await f.request('POST', `${PREFIXES[1]}/bulk-delete`, {
      key,
      body: { campaignId: f.ids.campaignA, leads: [{ phoneNumber: phone() }] },
    });
    ok(b);
    expect(Number(b.headers['x-ratelimit-remaining'])).toBe(0);
    const retry = expect429(await bulk(key, PREFIXES[1]), 2);
    expect429(
      await f.request('POST', `${PREFIXES[0]}/bulk-delete`, {
        key,
        body: { campaignId: f.ids.campaignA, leads: [{ phoneNumber: phone() }] },
      }),
      2,
    );
    // non-bulk calls are unaffected by the exhausted bulk window
    const single = await list(key);
    ok(single);
    f.clock.advance(retry * 1000);
    ok(await bulk(key));
  });

  it('the hourly window counts every call, bulk or not', async () => {
    const key = await freshKey();
    const start = f.clock.now;
    for (let i = 0; i < 5; i++) ok(await list(key)); // hour: 5
    f.clock.advance(61_000);
    ok(await bulk(key));
    ok(await bulk(key)); // hour: 7
    f.clock.advance(61_000);
    const eighth = await list(key); // hour: 8
    ok(eighth);
    expect(Number(eighth.headers['x-ratelimit-limit'])).toBe(8);
    expect(Number(eighth.headers['x-ratelimit-remaining'])).toBe(0);
    const retry = expect429(await list(key), 8);
    expect429(await bulk(key), 8);
    // the first call leaves the hour window at start + 1 h
    expect(retry).toBe(Math.ceil((start + 3600_000 - f.clock.now) / 1000));
    f.clock.advance(retry * 1000);
    ok(await list(key));
  });

  it('limits are per key: another key of the same company is unaffected', async () => {
    const [k1, k2] = [await freshKey(), await freshKey()];
    for (let i = 0; i < 5; i++) ok(await list(k1));
    expect429(await list(k1), 5);
    const other = await list(k2);
    ok(other);
    expect(Number(other.headers['x-ratelimit-remaining'])).toBe(4);
    // and so is another company's key
    ok(await f.request('GET', PREFIXES[1], { key: f.keys.writeB, query: { campaignId: f.ids.campaignB } }));
  });

  it('/api/health is limited per IP, apart from the API keys', async () => {
    const statuses: number[] = [];
    const remaining: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await f.request('GET', '/api/health', { key: null });
      statuses.push(res.status);
      remaining.push(String(res.headers['x-ratelimit-remaining']));
    }
    expect(statuses).toEqual([200, 200, 200]);
    expect(remaining).toEqual(['2', '1', '0']);
    const retry = expect429(await f.request('GET', '/api/health', { key: null }), 3);
    // a valid key still works while the health check is limited
    ok(await list(await freshKey()));
    // a different client IP has its own budget
    const elsewhere = await f.app.inject({ method: 'GET', url: '/api/health', remoteAddress: '203.0.113.9' });
    expect(elsewhere.statusCode).toBe(200);
    f.clock.advance(retry * 1000);
    expect((await f.request('GET', '/api/health', { key: null })).status).toBe(200);
  });

  it('failed authentication is limited per IP; a valid key from the same IP still works', async () => {
    const bad = ['nope', 'll_forged', f.keys.revokedA];
    for (const key of bad) {
      const res = await list(key);
      expect(res.status).toBe(401);
      expect(res.body.error).toBe('Invalid or inactive API key');
      expectRateHeaders(res);
    }
    const refused = await list('yet-another-guess');
    const retry = expect429(refused, 3);
    // a missing key is a failed authentication too
    expect429(await f.request('GET', PREFIXES[1], { key: null, query: { campaignId: f.ids.campaignA } }), 3);
    // a valid key from the same IP is not locked out
    ok(await list(f.keys.readA));
    ok(await list(await freshKey()));
    // another IP may still try
    const other = await f.app.inject({
      method: 'GET',
      url: `/api/v1/leads?campaignId=${f.ids.campaignA}`,
      headers: { 'x-api-key': 'nope' },
      remoteAddress: '198.51.100.7',
    });
    expect(other.statusCode).toBe(401);
    f.clock.advance(retry * 1000);
    expect((await list('nope')).status).toBe(401);
  });

  it('X-RateLimit-Reset is Unix seconds in the near future', async () => {
    const key = await freshKey();
    const res = await list(key);
    const reset = Number(res.headers['x-ratelimit-reset']);
    const nowSec = f.clock.now / 1000;
    expect(reset).toBeGreaterThan(nowSec);
    expect(reset).toBeLessThanOrEqual(Math.ceil(nowSec) + 3600);
  });
});
