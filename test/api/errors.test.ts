/**
 * Transport-level errors and the envelope: bad JSON, oversized bodies, wrong
 * content types, unknown paths, internal errors that must not leak, the health
 * check, and the X-RateLimit-* headers on every response.
 * docs/api.md "Errors".
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableStores } from '../helpers/db.js';
import { type Fixture, isEnvelope, makeFixture } from '../helpers/fixture.js';
import { countLeads, expectError, expectRateHeaders, ok, phone, PREFIXES } from './support.js';

const JSON_HEADERS = { 'content-type': 'application/json' };

describe.each(await availableStores())('errors and envelope on %s', (kind) => {
  let f: Fixture;
  beforeAll(async () => {
    f = await makeFixture(kind, { env: { BODY_LIMIT_BYTES: '2048' } });
  });
  afterAll(() => f.close());

  describe.each(PREFIXES)('%s', (prefix) => {
    it('malformed JSON: 400 envelope', async () => {
      for (const url of [prefix, `${prefix}/bulk`, `${prefix}/bulk-delete`]) {
        for (const body of ['{"campaignId":', '{campaignId: 1}', "{'a':1}", '{"a":1}}', 'nul']) {
          const res = await f.request('POST', url, { body, headers: JSON_HEADERS });
          expect(res.status, `${url} ${body}`).toBe(400);
          expect(res.body).toEqual({ success: false, data: null, error: expect.any(String) });
          expect(res.body.error).not.toMatch(/Unexpected|position|SyntaxError/);
          expectRateHeaders(res);
        }
      }
    });

    it('prototype-poisoning JSON is refused with a 400 envelope, not a 500', async () => {
      for (const body of [
        `{"campaignId":"${'x'}","phoneNumber":"+14155550100","__proto__":{"admin":true}}`,
        `{"campaignId":"x","phoneNumber":"+14155550100","metadata":{"__proto__":{"polluted":1}}}`,
        `{"campaignId":"x","phoneNumber":"+14155550100","constructor":{"prototype":{"polluted":1}}}`,
        // the keys spelled with \u escapes, which only secure-json-parse decodes before judging
        `{"campaignId":"x","phoneNumber":"+14155550100","\\u005f_proto__":{"admin":true}}`,
        `{"campaignId":"x","phoneNumber":"+14155550100","metadata":{"__pr\\u006fto__":{"polluted":1}}}`,
        `{"campaignId":"x","phoneNumber":"+14155550100","\\u0063onstructor":{"prototype":{"polluted":1}}}`,
      ]) {
        const res = await f.request('POST', prefix, { body, headers: JSON_HEADERS });
        expect(res.status, body).toBe(400);
        expect(res.body).toEqual({ success: false, data: null, error: expect.any(String) });
      }
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });

    it('an empty body with a JSON content type: 400 envelope', async () => {
      const res = await f.request('POST', prefix, { body: '', headers: JSON_HEADERS });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ success: false, data: null, error: expect.any(String) });
    });

    it('a body larger than the limit: 413 envelope', async () => {
      const leads = Array.from({ length: 100 }, () => ({ phoneNumber: phone() }));
      for (const url of [prefix, `${prefix}/bulk`, `${prefix}/bulk-delete`]) {
        const res = await f.request('POST', url, { body: { campaignId: f.ids.campaignA, phoneNumber: phone(), leads } });
        expect(res.status, url).toBe(413);
        expect(res.body).toEqual({ success: false, data: null, error: expect.any(String) });
        expect(res.body.error).toMatch(/large|limit|size/i);
        // refused on its declared Content-Length, unread: no quota spent (test/security/api-bodies.test.ts), the headers still there
        expectRateHeaders(res);
      }
      // just under the limit is fine
      const small = await f.request('POST', `${prefix}/bulk`, {
        body: { campaignId: f.ids.campaignA, leads: Array.from({ length: 40 }, () => ({ phoneNumber: phone() })) },
      });
      ok(small);
    });

    it('a wrong content type: 400 for text/plain (read as text, not an object), 415 for the rest', async () => {
      const cases: [string, string, number, string][] = [
        ['text/plain', JSON.stringify({ campaignId: f.ids.campaignA, phoneNumber: phone() }), 400, 'Request body must be a JSON object'],
        [
          'application/x-www-form-urlencoded',
          `campaignId=${f.ids.campaignA}&phoneNumber=%2B14155550100`,
          415,
          'Content-Type must be application/json',
        ],
        ['application/xml', '<lead/>', 415, 'Content-Type must be application/json'],
      ];
      const before = await countLeads(f, f.ids.campaignA);
      for (const [type, body, status, message] of cases) {
        const res = await f.request('POST', prefix, { body, headers: { 'content-type': type } });
        expectError(res, status, message);
        expectRateHeaders(res);
      }
      expect(await countLeads(f, f.ids.campaignA)).toBe(before);
      // and no body at all on a POST is a 4xx too
      const none = await f.request('POST', `${prefix}/bulk`);
      expect(none.status).toBeGreaterThanOrEqual(400);
      expect(none.status).toBeLessThan(500);
      expect(isEnvelope(none.body)).toBe(true);
    });

    it('application/json with a charset is accepted', async () => {
      const res = await f.request('POST', prefix, {
        body: JSON.stringify({ campaignId: f.ids.campaignA, phoneNumber: phone() }),
        headers: { 'content-type': 'application/json; charset=utf-8' },
      });
      ok(res, 201);
    });

    it('unknown sub-paths and methods: 404 Not found', async () => {
      for (const [method, url] of [
        ['GET', `${prefix}/nope`],
        ['GET', `${prefix}/bulk`],
        ['PUT', prefix],
        ['PATCH', prefix],
        ['POST', `${prefix}/bulk/extra`],
      ] as const) {
        const res = await f.request(method, url, { query: { campaignId: f.ids.campaignA } });
        expectError(res, 404, 'Not found');
        expectRateHeaders(res);
      }
    });
  });

  it('unknown paths under /api and elsewhere: 404 Not found', async () => {
    for (const url of [
      '/api',
      '/api/v1',
      '/api/v2/leads',
      '/api/v1/lead',
      '/api/v1/campaigns',
      '/',
      '/favicon.ico',
      '/leads',
      '/api/v1/leads/../../etc/passwd',
    ]) {
      for (const key of [f.keys.writeA, null]) {
        const res = await f.request('GET', url, { key });
        expectError(res, 404, 'Not found');
        expectRateHeaders(res);
      }
    }
  });

  it('GET /api/health: 200 {status ok, database ok}, no key needed', async () => {
    const res = await f.request('GET', '/api/health', { key: null });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, data: { status: 'ok', database: 'ok' }, error: null });
    expectRateHeaders(res);
  });

  it('success and error responses all carry the envelope and the X-RateLimit-* headers', async () => {
    const c = f.ids.campaignA;
    const p = phone();
    const responses = [
      await f.request('POST', '/api/v1/leads', { body: { campaignId: c, phoneNumber: p } }), // 201
      await f.request('GET', '/api/v1/leads', { query: { campaignId: c } }), // 200
      await f.request('POST', '/api/v1/leads', { body: { campaignId: c, phoneNumber: p } }), // 409
      await f.request('POST', '/api/v1/leads', { body: { campaignId: c } }), // 400
      await f.request('GET', '/api/v1/leads', { key: null, query: { campaignId: c } }), // 401
      await f.request('GET', '/api/v1/leads', { key: 'bad', query: { campaignId: c } }), // 401
      await f.request('POST', '/api/v1/leads', { key: f.keys.readA, body: { campaignId: c, phoneNumber: phone() } }), // 403
      await f.request('DELETE', '/api/v1/leads', { key: f.keys.writeB, query: { campaignId: c, phoneNumber: p } }), // 403
      await f.request('GET', '/api/v1/leads', { key: f.keys.writeB, query: { campaignId: c } }), // 404
      await f.request('DELETE', '/api/v1/leads', { query: { campaignId: c, phoneNumber: '+19999999999' } }), // 404
      await f.request('GET', '/api/v1/nothing-here'), // 404
      await f.request('DELETE', '/api/v1/leads', { query: { campaignId: c, phoneNumber: p } }), // 200
      await f.request('GET', '/api/health', { key: null }), // 200
    ];
    expect(responses.map((r) => r.status)).toEqual([201, 200, 409, 400, 401, 401, 403, 403, 404, 404, 404, 200, 200]);
    for (const res of responses) {
      expect(isEnvelope(res.body), JSON.stringify(res.body)).toBe(true);
      expect(res.body.success).toBe(res.status < 400);
      if (!res.body.success) expect(res.body.data).toBeNull();
      expectRateHeaders(res);
      expect(String(res.headers['content-type'])).toMatch(/^application\/json/);
    }
  });
});

describe.each(await availableStores())('an internal error on %s', (kind) => {
  let f: Fixture;
  beforeAll(async () => {
    f = await makeFixture(kind);
    // seed one lead so the campaign is real, then break the database under the app
    ok(await f.request('POST', '/api/v1/leads', { body: { campaignId: f.ids.campaignA, phoneNumber: '+14155550123' } }), 201);
    // cascade: on PostgreSQL the dialer's tables reference leads
    await (kind === 'postgres' ? sql`drop table leads cascade` : sql`drop table leads`).execute(f.db.kysely);
  });
  afterAll(() => f.close());

  const INTERNAL = { success: false, data: null, error: 'Internal server error' };

  it.each(PREFIXES)('a 500 on %s is exactly the generic envelope, with no SQL, stack or path', async (prefix) => {
    const c = f.ids.campaignA;
    const responses = [
      await f.request('POST', prefix, { body: { campaignId: c, phoneNumber: '+14155550124' } }),
      await f.request('GET', prefix, { query: { campaignId: c } }),
      await f.request('DELETE', prefix, { query: { campaignId: c, phoneNumber: '+14155550123' } }),
      await f.request('POST', `${prefix}/bulk`, { body: { campaignId: c, leads: [{ phoneNumber: '+14155550125' }] } }),
      await f.request('POST', `${prefix}/bulk-delete`, { body: { campaignId: c, leads: [{ phoneNumber: '+14155550123' }] } }),
    ];
    for (const res of responses) {
      expect(res.status).toBe(500);
      expect(res.body).toStrictEqual(INTERNAL);
      expect(Object.keys(res.body).sort()).toEqual(['data', 'error', 'success']);
      const raw = JSON.stringify(res.body);
      expect(raw).not.toMatch(/leads|sql|select|insert|relation|table|stack|\/work|node_modules|\.ts|\.js/i);
      expectRateHeaders(res);
    }
  });

  it('requests that do not touch the leads table still work', async () => {
    expectError(await f.request('GET', '/api/v1/leads', { key: null, query: { campaignId: f.ids.campaignA } }), 401, 'Missing API key');
    expectError(
      await f.request('POST', '/api/v1/leads', { body: { campaignId: f.ids.campaignA } }),
      400,
      'At least one of phoneNumber or externalId is required',
    );
    const health = await f.request('GET', '/api/health', { key: null });
    expect(health.status).toBe(200);
  });
});

describe.each(await availableStores())('the database gone on %s', (kind) => {
  let f: Fixture;
  beforeAll(async () => {
    f = await makeFixture(kind, { rateLimit: { ipPerMinute: 5 } });
    await f.db.close();
  });
  afterAll(async () => {
    await f.app.close();
    await f.limiter.close();
    await f.store.drop();
  });

  it('GET /api/health: 503 with database unreachable', async () => {
    const res = await f.request('GET', '/api/health', { key: null });
    expect(res.status).toBe(503);
    expect(res.body).toEqual({
      success: false,
      data: { status: expect.any(String), database: 'unreachable' },
      error: expect.any(String),
    });
    expectRateHeaders(res);
  });

  it('API calls fail with a 5xx envelope that leaks nothing', async () => {
    for (const prefix of PREFIXES) {
      const res = await f.request('GET', prefix, { query: { campaignId: f.ids.campaignA } });
      expect(res.status).toBeGreaterThanOrEqual(500);
      expect(res.body).toEqual({ success: false, data: null, error: expect.any(String) });
      expect(res.body.error).not.toMatch(/pool|sqlite|connection|database is|not open|\/|\.ts/i);
    }
  });

  // docs/api.md: every response carries X-RateLimit-*. A key that cannot be looked up is
  // counted per client IP, as a failed authentication is; the answer stays the outage's.
  it('the 5xx during an outage carries the X-RateLimit-* headers, counted per client IP, and is never a 429', async () => {
    const res = await f.request('GET', PREFIXES[0], { query: { campaignId: f.ids.campaignA } });
    expect(res.status).toBeGreaterThanOrEqual(500);
    expectRateHeaders(res);

    const limit = f.config.rateLimit.ipPerMinute;
    const seen: { status: number; limit: string; remaining: number }[] = [];
    for (let i = 0; i < limit + 2; i++) {
      const r = await f.app.inject({
        method: 'GET',
        url: PREFIXES[1],
        query: { campaignId: f.ids.campaignA },
        headers: { 'x-api-key': f.keys.readA },
        remoteAddress: '198.51.100.7',
      });
      seen.push({
        status: r.statusCode,
        limit: String(r.headers['x-ratelimit-limit']),
        remaining: Number(r.headers['x-ratelimit-remaining']),
      });
    }
    expect(seen.map((r) => r.status)).toEqual(seen.map(() => res.status));
    expect(seen.map((r) => r.limit)).toEqual(seen.map(() => String(limit)));
    expect(seen.map((r) => r.remaining)).toEqual([...Array.from({ length: limit }, (_, i) => limit - 1 - i), 0, 0]);
  });
});
