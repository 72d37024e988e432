/**
 * Authentication, scopes and campaign access over HTTP (docs/api.md
 * "Authentication and keys", docs/api.md "Errors" and "Authentication and keys").
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, revokeKey } from '../../src/auth/service.js';
import { generateKeyValue } from '../../src/auth/keys.js';
import { availableStores } from '../helpers/db.js';
import { type Fixture, makeFixture } from '../helpers/fixture.js';
import { expectError, expectRateHeaders, listAll, ok, phone, PREFIXES, seed } from './support.js';

type Call = { name: string; method: 'GET' | 'POST' | 'DELETE'; url: string; body?: unknown; query?: Record<string, string> };

/** one valid request per endpoint, aimed at `campaignId` */
function calls(prefix: string, campaignId: string): Call[] {
  return [
    { name: 'create', method: 'POST', url: prefix, body: { campaignId, phoneNumber: '+14155559901' } },
    { name: 'list', method: 'GET', url: prefix, query: { campaignId } },
    { name: 'delete', method: 'DELETE', url: prefix, query: { campaignId, phoneNumber: '+14155559901' } },
    { name: 'bulk', method: 'POST', url: `${prefix}/bulk`, body: { campaignId, leads: [{ phoneNumber: '+14155559902' }] } },
    {
      name: 'bulk-delete',
      method: 'POST',
      url: `${prefix}/bulk-delete`,
      body: { campaignId, leads: [{ phoneNumber: '+14155559902' }] },
    },
  ];
}

const WRITE_ENDPOINTS = ['create', 'delete', 'bulk', 'bulk-delete'];

/** the key with its last character changed (to a different one, always) */
const tamperLast = (key: string) => `${key.slice(0, -1)}${key.endsWith('0') ? '1' : '0'}`;

describe.each(await availableStores())('authentication and access on %s', (kind) => {
  let f: Fixture;
  beforeAll(async () => {
    f = await makeFixture(kind);
  });
  afterAll(() => f.close());

  describe.each(PREFIXES)('%s', (prefix) => {
    it('no x-api-key header: 401 Missing API key on every endpoint', async () => {
      for (const c of calls(prefix, f.ids.campaignA)) {
        const res = await f.request(c.method, c.url, { key: null, body: c.body, query: c.query });
        expectError(res, 401, 'Missing API key');
        expectRateHeaders(res);
      }
    });

    it('HEAD on the list needs a key like GET does', async () => {
      const res = await f.app.inject({ method: 'HEAD', url: `${prefix}?campaignId=${f.ids.campaignA}` });
      expect(res.statusCode).toBe(401);
      expect(res.headers['x-ratelimit-limit']).toBeDefined();
      const allowed = await f.app.inject({
        method: 'HEAD',
        url: `${prefix}?campaignId=${f.ids.campaignA}`,
        headers: { 'x-api-key': f.keys.readA },
      });
      expect(allowed.statusCode).toBe(200);
      const foreign = await f.app.inject({
        method: 'HEAD',
        url: `${prefix}?campaignId=${f.ids.campaignA}`,
        headers: { 'x-api-key': f.keys.writeB },
      });
      expect(foreign.statusCode).toBe(404);
    });

    it('a key sent as Authorization: Bearer gets the x-api-key hint; without that header the message stays exact', async () => {
      const bearer = await f.request('GET', prefix, {
        key: null,
        query: { campaignId: f.ids.campaignA },
        headers: { authorization: `Bearer ${f.keys.writeA}` },
      });
      expectError(bearer, 401, 'Missing API key: send it in the x-api-key header (the Authorization header is not read)');
      const none = await f.request('GET', prefix, { key: null, query: { campaignId: f.ids.campaignA } });
      expectError(none, 401, 'Missing API key');
    });

    it('an empty x-api-key header is a missing key', async () => {
      const res = await f.request('GET', prefix, { key: '', query: { campaignId: f.ids.campaignA } });
      expectError(res, 401, 'Missing API key');
    });

    it('malformed, well-formed unknown and revoked keys: 401 Invalid or inactive API key', async () => {
      const bad = ['nonsense', 'll_short', tamperLast(f.keys.writeA), generateKeyValue(), f.keys.revokedA];
      for (const key of bad) {
        for (const c of calls(prefix, f.ids.campaignA)) {
          const res = await f.request(c.method, c.url, { key, body: c.body, query: c.query });
          expectError(res, 401, 'Invalid or inactive API key');
          expectRateHeaders(res);
        }
      }
    });

    it('authentication comes before validation: a bad key with a bad body is 401', async () => {
      const res = await f.request('POST', prefix, { key: 'nonsense', body: { nothing: true } });
      expectError(res, 401, 'Invalid or inactive API key');
      const missing = await f.request('POST', `${prefix}/bulk`, {
        key: null,
        body: '{not json',
        headers: { 'content-type': 'application/json' },
      });
      expectError(missing, 401, 'Missing API key');
    });

    it('a read key gets 403 Insufficient permissions on every write endpoint, and can list', async () => {
      for (const c of calls(prefix, f.ids.campaignA)) {
        const res = await f.request(c.method, c.url, { key: f.keys.readA, body: c.body, query: c.query });
        if (WRITE_ENDPOINTS.includes(c.name)) {
          expectError(res, 403, 'Insufficient permissions');
          expectRateHeaders(res);
        } else ok(res);
      }
      // scope is checked before validation: an invalid body is still 403 for a read key
      const invalid = await f.request('POST', `${prefix}/bulk`, { key: f.keys.readA, body: { leads: 'nope' } });
      expectError(invalid, 403, 'Insufficient permissions');
      const invalidDelete = await f.request('DELETE', prefix, { key: f.keys.readA });
      expectError(invalidDelete, 403, 'Insufficient permissions');
    });

    it('a restricted key works on its campaign', async () => {
      const p = phone();
      const created = await f.request('POST', prefix, { key: f.keys.restrictedA, body: { campaignId: f.ids.campaignA, phoneNumber: p } });
      ok(created, 201);
      ok(await f.request('GET', prefix, { key: f.keys.restrictedA, query: { campaignId: f.ids.campaignA } }));
      const del = await f.request('DELETE', prefix, { key: f.keys.restrictedA, query: { campaignId: f.ids.campaignA, phoneNumber: p } });
      expect(ok(del)).toEqual({ deleted: true });
    });

    it('a restricted key on another campaign of its company: 404 for list/create/bulk, 403 Forbidden for deletes', async () => {
      const p = phone();
      await seed(f, f.ids.campaignA2, [{ phoneNumber: p }]);
      const before = await listAll(f, f.ids.campaignA2);
      for (const c of calls(prefix, f.ids.campaignA2)) {
        const q = c.name === 'delete' ? { ...c.query, phoneNumber: p } : c.query;
        const b = c.name === 'bulk-delete' ? { ...(c.body as object), leads: [{ phoneNumber: p }] } : c.body;
        const res = await f.request(c.method, c.url, { key: f.keys.restrictedA, body: b, query: q });
        if (c.name === 'delete' || c.name === 'bulk-delete') expectError(res, 403, 'Forbidden');
        else expectError(res, 404, 'Campaign not found or access denied');
      }
      expect(await listAll(f, f.ids.campaignA2)).toEqual(before);
    });

    it("company B's key on company A's campaign: 404 for create/bulk/list, 403 for deletes, and A's leads are untouched", async () => {
      const p = phone();
      await seed(f, f.ids.campaignA, [{ phoneNumber: p, externalId: `b-target-${prefix}` }]);
      const before = await listAll(f, f.ids.campaignA);
      for (const c of calls(prefix, f.ids.campaignA)) {
        const q = c.name === 'delete' ? { campaignId: f.ids.campaignA, phoneNumber: p } : c.query;
        const b =
          c.name === 'bulk-delete'
            ? { campaignId: f.ids.campaignA, leads: [{ phoneNumber: p }, { externalId: `b-target-${prefix}` }] }
            : c.body;
        const res = await f.request(c.method, c.url, { key: f.keys.writeB, body: b, query: q });
        if (c.name === 'delete' || c.name === 'bulk-delete') expectError(res, 403, 'Forbidden');
        else expectError(res, 404, 'Campaign not found or access denied');
      }
      expect(await listAll(f, f.ids.campaignA)).toEqual(before);
      // B's key still works on B's own campaign
      ok(await f.request('GET', prefix, { key: f.keys.writeB, query: { campaignId: f.ids.campaignB } }));
    });

    it('a campaign that does not exist: 404 for create/bulk/list, 403 for deletes', async () => {
      for (const c of calls(prefix, 'cp_doesnotexist')) {
        const res = await f.request(c.method, c.url, { body: c.body, query: c.query });
        if (c.name === 'delete' || c.name === 'bulk-delete') expectError(res, 403, 'Forbidden');
        else expectError(res, 404, 'Campaign not found or access denied');
        expectRateHeaders(res);
      }
    });

    it('validation comes before campaign access: an invalid body on a foreign campaign is 400', async () => {
      const res = await f.request('POST', prefix, { key: f.keys.writeB, body: { campaignId: f.ids.campaignA, phoneNumber: '123' } });
      expect(res.status).toBe(400);
      expect(res.body.error).toContain('phoneNumber');
    });
  });

  it('a key revoked after use fails with 401 within one second', async () => {
    const { keyId, key } = await createKey(f.db, { companyId: f.ids.companyA, name: 'soon revoked', scope: 'write' });
    ok(await f.request('GET', '/api/v1/leads', { key, query: { campaignId: f.ids.campaignA } }));
    ok(await f.request('GET', '/api/v1/leads', { key, query: { campaignId: f.ids.campaignA } }));
    expect(await revokeKey(f.db, keyId)).toBe(true);
    f.clock.advance(1000);
    for (const prefix of PREFIXES) {
      const res = await f.request('GET', prefix, { key, query: { campaignId: f.ids.campaignA } });
      expectError(res, 401, 'Invalid or inactive API key');
      const write = await f.request('POST', prefix, { key, body: { campaignId: f.ids.campaignA, phoneNumber: phone() } });
      expectError(write, 401, 'Invalid or inactive API key');
    }
  });

  it('a freshly created key works on its first use', async () => {
    const { key } = await createKey(f.db, { companyId: f.ids.companyA, name: 'fresh', scope: 'read' });
    ok(await f.request('GET', '/api/v1/records', { key, query: { campaignId: f.ids.campaignA } }));
  });
});

/**
 * Path parameters longer than the router's limit (Fastify's maxParamLength, 100 by default) were
 * answered 400 by frameworkErrors before any hook: ahead of the 401, uncounted per client IP and
 * without rate-limit headers. The route's own schema answers instead, after authentication.
 */
describe.each(await availableStores())('order of checks on path parameters on %s', (kind) => {
  let f: Fixture;
  beforeAll(async () => {
    f = await makeFixture(kind, { rateLimit: { ipPerMinute: 3 } });
  });
  afterAll(() => f?.close());

  const longId = 'at_'.padEnd(101, 'x'); // a well-formed URL; one past the schema's maxLength 100
  const report = (key: string | null, id = longId) =>
    f.request('POST', `/api/v1/attempts/${id}/outcome`, { key, body: { success: true, outcome: 'answered' } });

  it('an outcome report for a 101-character attemptId without a key is 401 Missing API key', async () => {
    expectError(await report(null), 401, 'Missing API key');
  });

  it('with a key, the route schema answers 400 (a 1000-character id too)', async () => {
    for (const id of [longId, 'at_'.padEnd(1000, 'x')]) {
      const res = await report(f.keys.writeA, id);
      expect(res.status).toBe(400);
      expect(res.body.error).toContain('attemptId');
    }
  });

  it('unauthenticated requests to such a URL are counted per client IP and carry the rate-limit headers', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const res = await report(null);
      statuses.push(res.status);
      expect(res.headers['x-ratelimit-limit'], `response ${i}: ${res.status}`).toBeDefined();
    }
    expect(statuses).toContain(429);
  });
});
