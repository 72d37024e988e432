/**
 * The OpenAPI document: served publicly, complete (every /api route, both path
 * families, the key scheme, every error status), true (real responses of every
 * endpoint validate against it), and the source of the committed client types.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Fixture, makeFixture, type Reply } from '../helpers/fixture.js';
import { listQuery } from '../../src/leads/schemas.js';
import { PREFIXES } from '../api/support.js';
import { acceptedRetellCall, type OpenApiDocument, registeredRoutes, responseChecker } from './support.js';

const DOC = '/api/v1/openapi.json';
const WEBHOOKS_IN = '/api/v1/providers/{platform}/events';
let f: Fixture;
let doc: OpenApiDocument;
let checker: ReturnType<typeof responseChecker>;

beforeAll(async () => {
  f = await makeFixture('sqlite', { env: { BODY_LIMIT_BYTES: '65536', PUBLIC_URL: 'https://leadline.example.com' } });
  const res = await f.request('GET', DOC, { key: null });
  expect(res.status).toBe(200);
  doc = res.body;
  checker = responseChecker(doc);
});
afterAll(() => f.close());

describe('the document', () => {
  it('is public OpenAPI 3.1 JSON, with rate-limit headers like every response', async () => {
    const res = await f.request('GET', DOC, { key: null });
    expect(String(res.headers['content-type'])).toMatch(/^application\/json/);
    expect(doc.openapi).toBe('3.1.0');
    checker.check('GET', DOC, res);
  });

  it('lists every route registered under /api, and nothing that is not registered', () => {
    const routes = registeredRoutes(f.app)
      .filter((r) => r.url.startsWith('/api/'))
      .map((r) => `${r.method} ${r.url.replace(/\/$/, '').replace(/:(\w+)/g, '{$1}')}`);
    expect(routes.length).toBeGreaterThanOrEqual(12);
    const documented = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.keys(ops as object).map((m) => `${m.toUpperCase()} ${path}`),
    );
    expect([...new Set(routes)].sort()).toEqual(documented.sort());
    for (const prefix of PREFIXES) {
      for (const op of ['POST ', 'GET ', 'DELETE ', 'POST /bulk', 'POST /bulk-delete']) {
        const [method, suffix] = op.split(' ');
        expect(documented).toContain(`${method} ${prefix}${suffix}`);
      }
    }
  });

  it("requires x-api-key on every operation but the public ones (health, this document, the platforms' signed webhooks)", () => {
    expect(doc.components.securitySchemes.apiKey).toEqual(expect.objectContaining({ type: 'apiKey', in: 'header', name: 'x-api-key' }));
    const PUBLIC = ['/api/health', DOC, WEBHOOKS_IN];
    for (const [path, ops] of Object.entries<any>(doc.paths)) {
      for (const op of Object.values<any>(ops)) expect(op.security, path).toEqual(PUBLIC.includes(path) ? [] : [{ apiKey: [] }]);
    }
    expect(doc.security).toBeUndefined();
  });

  it('documents the error envelope for every error status, and the 429 body with Retry-After', () => {
    for (const [path, ops] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(ops)) {
        const statuses = Object.keys(op.responses);
        // the platforms' webhooks are signed, and not rate-limited: a platform posts several per call
        if (path === WEBHOOKS_IN) continue;
        expect(statuses, `${method} ${path}`).toContain('429');
        expect(op.responses['429'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/RateLimitedEnvelope' });
        expect(Object.keys(op.responses['429'].headers)).toEqual([
          'X-RateLimit-Limit',
          'X-RateLimit-Remaining',
          'X-RateLimit-Reset',
          'Retry-After',
        ]);
        if (!path.includes('/leads') && !path.includes('/records')) continue;
        for (const status of ['400', '401', '500', '503']) expect(statuses, `${method} ${path}`).toContain(status);
        for (const status of statuses.filter((s) => Number(s) >= 400 && s !== '429')) {
          expect(op.responses[status].content['application/json'].schema, `${method} ${path} ${status}`).toEqual({
            $ref: '#/components/schemas/ErrorEnvelope',
          });
        }
      }
    }
    expect(doc.components.schemas.RateLimitedEnvelope.required).toEqual(['success', 'data', 'error', 'limit', 'remaining', 'reset']);
  });

  it('is generated from the validating schemas: request rules appear as Ajv enforces them', () => {
    const body = doc.paths['/api/v1/leads/bulk'].post.requestBody.content['application/json'].schema;
    expect(body.properties.leads).toMatchObject({ minItems: 1, maxItems: 1000 });
    expect(body.properties.leads.items.properties.phoneNumber.pattern).toBe('^\\+[1-9][0-9]{1,14}$');
    expect(body.properties.leads.items.properties.metadata['x-maxJsonBytes']).toBe(16384);
    const list = doc.paths['/api/v1/records'].get.parameters.map((p: { name: string }) => p.name);
    expect(list).toEqual(['campaignId', 'status', 'limit', 'cursor']);
  });

  it('documents limit as the positive integer it is, while Ajv still validates the query text', async () => {
    for (const prefix of PREFIXES) {
      const limit = doc.paths[prefix].get.parameters.find((p: { name: string }) => p.name === 'limit');
      expect(limit.schema).toEqual({ type: 'integer', minimum: 1 });
    }
    expect(listQuery.properties.limit).toMatchObject({ type: 'string', pattern: '^[0-9]*[1-9][0-9]*$' });
    for (const limit of ['0', '1.5', '-1']) {
      const refused = await f.request('GET', '/api/v1/leads', { query: { campaignId: f.ids.campaignA, limit } });
      expect([refused.status, refused.body.error]).toEqual([400, 'limit must be a whole number of at least 1']);
    }
  });

  it('is what the committed typed client was generated from (run `npm run generate:client` when this fails)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'leadline-openapi-'));
    try {
      writeFileSync(join(dir, 'openapi.json'), JSON.stringify(doc));
      await promisify(execFile)(process.execPath, [
        'node_modules/openapi-typescript/bin/cli.js',
        join(dir, 'openapi.json'),
        '--empty-objects-unknown',
        '-o',
        join(dir, 'schema.ts'),
      ]);
      expect(readFileSync(join(dir, 'schema.ts'), 'utf8')).toBe(readFileSync('packages/client/src/schema.ts', 'utf8'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('real responses of every endpoint validate against the document', () => {
  const check = (method: string, path: string, res: Reply) => checker.check(method, path, res);
  /**
   * Each kind of call runs once, from its own test or from the coverage test,
   * whichever comes first: the coverage test does not depend on the order
   * tests run in, or on which of them a filter selected.
   */
  const runs = new Map<string, Promise<void>>();
  const once = (name: string, fn: () => Promise<void>) => () => {
    let run = runs.get(name);
    if (!run) runs.set(name, (run = fn()));
    return run;
  };

  const everyClientError = (prefix: string) =>
    once(`client errors ${prefix}`, async () => {
      const c = f.ids.campaignA;
      const phone = prefix.endsWith('leads') ? '+14155550100' : '+14155550200';
      const ext = `${prefix}-ext`;
      const create = (body: unknown, o: { key?: string | null; headers?: Record<string, string> } = {}) =>
        f.request('POST', prefix, { body, ...o });
      check(
        'POST',
        prefix,
        await create({
          campaignId: c,
          phoneNumber: phone,
          externalId: ext,
          metadata: { a: 1 },
          scheduledFor: '2030-01-01T09:00:00+02:00',
          priority: 3,
        }),
      );
      check('POST', prefix, await create({ campaignId: c, externalId: ext, phoneNumber: '+14155550999' })); // 409
      check('POST', prefix, await create({ campaignId: c })); // 400
      check('POST', prefix, await create({ campaignId: c, phoneNumber: phone }, { key: null })); // 401
      check('POST', prefix, await create({ campaignId: c, phoneNumber: phone }, { key: 'll_nope' })); // 401
      check('POST', prefix, await create({ campaignId: c, phoneNumber: phone }, { key: f.keys.readA })); // 403
      check('POST', prefix, await create({ campaignId: f.ids.campaignB, phoneNumber: phone })); // 404
      check('POST', prefix, await create({ campaignId: c, phoneNumber: phone, metadata: { x: 'y'.repeat(70_000) } })); // 413
      check('POST', prefix, await create('phoneNumber=1', { headers: { 'content-type': 'application/x-www-form-urlencoded' } })); // 415

      check(
        'POST',
        `${prefix}/bulk`,
        await f.request('POST', `${prefix}/bulk`, {
          body: { campaignId: c, leads: [{ phoneNumber: phone }, { externalId: `${ext}-2`, phoneNumber: '+14155550301' }] },
        }),
      );
      check('POST', `${prefix}/bulk`, await f.request('POST', `${prefix}/bulk`, { body: { campaignId: c, leads: [{}] } })); // 400
      check(
        'POST',
        `${prefix}/bulk`,
        await f.request('POST', `${prefix}/bulk`, { body: { campaignId: 'cp_none', leads: [{ phoneNumber: phone }] } }),
      ); // 404

      const list = await f.request('GET', prefix, { key: f.keys.readA, query: { campaignId: c, limit: '1' } });
      check('GET', prefix, list);
      expect(list.body.data.leads[0]).toMatchObject({ externalId: expect.any(String), scheduledFor: expect.any(String) });
      check('GET', prefix, await f.request('GET', prefix, { query: { campaignId: c, cursor: list.body.data.cursor } }));
      check('GET', prefix, await f.request('GET', prefix, { query: { campaignId: c, cursor: '!!' } })); // 400
      check('GET', prefix, await f.request('GET', prefix, { query: { campaignId: f.ids.campaignB } })); // 404

      check('DELETE', prefix, await f.request('DELETE', prefix, { query: { campaignId: c, phoneNumber: '+14155550301' } }));
      check('DELETE', prefix, await f.request('DELETE', prefix, { query: { campaignId: c, phoneNumber: '+14155550301' } })); // 404
      check('DELETE', prefix, await f.request('DELETE', prefix, { query: { campaignId: c } })); // 400
      check('DELETE', prefix, await f.request('DELETE', prefix, { query: { campaignId: f.ids.campaignB, externalId: ext } })); // 403

      const del = (body: unknown, key?: string) => f.request('POST', `${prefix}/bulk-delete`, { body, key });
      check('POST', `${prefix}/bulk-delete`, await del({ campaignId: c, leads: [{ externalId: ext }, { phoneNumber: '+14155550302' }] }));
      check('POST', `${prefix}/bulk-delete`, await del({ campaignId: c, leads: [] })); // 400
      check('POST', `${prefix}/bulk-delete`, await del({ campaignId: c, leads: [{ externalId: ext }] }, f.keys.readA)); // 403

      // 401 on every operation, 403 on every write operation
      const entry = { campaignId: c, leads: [{ phoneNumber: phone }] };
      for (const [method, path, o] of [
        ['GET', prefix, { query: { campaignId: c } }],
        ['DELETE', prefix, { query: { campaignId: c, phoneNumber: phone } }],
        ['POST', `${prefix}/bulk`, { body: entry }],
        ['POST', `${prefix}/bulk-delete`, { body: entry }],
      ] as const) {
        check(method, path, await f.request(method, path, { ...o, key: null }));
        if (method !== 'GET') check(method, path, await f.request(method, path, { ...o, key: f.keys.readA }));
      }
    });
  it.each(PREFIXES)('%s: successes and every reachable client error', (prefix) => everyClientError(prefix)());

  /** an attempt the dialer left awaiting its outcome, as a webhook provider's 202 leaves it */
  const awaitingAttempt = async (phoneNumber: string) => {
    const created = await f.request('POST', '/api/v1/leads', { body: { campaignId: f.ids.campaignA, phoneNumber } });
    const [lead] = await f.db.queue
      .claim({ campaignId: f.ids.campaignA, maxAttempts: 3, workerId: 'w', limit: 50, now: Date.now(), leaseMs: 60_000, openZones: null })
      .then((ls) => ls.filter((l) => l.id === created.body.data.leadId));
    const attemptId = `at_doc_${phoneNumber.slice(-4)}`;
    await f.db.queue.open([{ attemptId, lead: lead!, phoneNumber, startedAt: Date.now(), deadlineAt: Date.now() + 60_000 }], Date.now());
    await f.db.queue.accept(attemptId, { providerCallId: null, deadlineAt: Date.now() + 60_000 });
    return attemptId;
  };
  const outcomes = once('outcome', async () => {
    const url = (id: string) => `/api/v1/attempts/${id}/outcome`;
    const report = (id: string, body: unknown, key?: string | null) => f.request('POST', url(id), { body, key });
    const path = '/api/v1/attempts/{attemptId}/outcome';
    const id = await awaitingAttempt('+14155550601');
    check('POST', path, await report(id, { success: 'yes', outcome: 'answered' })); // 400
    check('POST', path, await report(id, { success: true, outcome: 'answered' }, null)); // 401
    check('POST', path, await report(id, { success: true, outcome: 'answered' }, f.keys.readA)); // 403
    check('POST', path, await report(id, { success: true, outcome: 'answered' }, f.keys.writeB)); // 404
    check('POST', path, await report(id, { success: true, outcome: 'answered', durationSeconds: 12 })); // 200
    check('POST', path, await report(id, { success: true, outcome: 'answered' })); // 409
  });
  it('the outcome report of an asynchronous call', () => outcomes());

  const providerEvents = once('webhooks in', async () => {
    const { post } = await acceptedRetellCall(f, 'doc', '+14155550701');
    check('POST', WEBHOOKS_IN, await post('call_doc', 'wrong-key')); // 401
    check('POST', WEBHOOKS_IN, await post('call_unknown')); // 404
    check('POST', WEBHOOKS_IN, await post('call_doc')); // 200
  });
  it("the platforms' webhooks in", () => providerEvents());

  const dnc = once('dnc', async () => {
    const path = '/api/v1/dnc';
    const numbers = { phoneNumbers: ['+14155550701', '+14155550702'] };
    for (const op of [path, `${path}/remove`]) {
      const post = (body: unknown, key?: string | null) => f.request('POST', op, { body, key });
      check('POST', op, await post({ ...numbers, reason: 'asked' })); // 200
      check('POST', op, await post({ phoneNumbers: [] })); // 400
      check('POST', op, await post(numbers, null)); // 401
      check('POST', op, await post(numbers, f.keys.readA)); // 403
      check('POST', op, await post(numbers, f.keys.restrictedA)); // 403
    }
    await f.request('POST', path, { body: numbers });
    const get = (query: Record<string, string>, key?: string | null) => f.request('GET', path, { query, key });
    check('GET', path, await get({ phoneNumber: '+14155550701' })); // 200, listed
    check('GET', path, await get({ phoneNumber: '+14155550799' })); // 200, not listed
    const page = await get({ limit: '1' });
    check('GET', path, page); // 200, a page
    check('GET', path, await get({ cursor: page.body.data.cursor })); // 200, the next page
    check('GET', path, await get({ cursor: '!!' })); // 400
    check('GET', path, await get({}, null)); // 401
    check('GET', path, await get({}, f.keys.restrictedA)); // 403
  });
  it("the company's do-not-call list", () => dnc());

  const pulled = once('events', async () => {
    const path = '/api/v1/events';
    await awaitingAttempt('+14155550602'); // lead.created, lead.status_changed, attempt.started
    const page = await f.request('GET', path, { query: { limit: '1000' } });
    const types = new Set(page.body.data.events.map((e: any) => e.type));
    for (const type of ['lead.created', 'lead.status_changed', 'attempt.started']) expect(types).toContain(type);
    check('GET', path, page); // 200
    check('GET', path, await f.request('GET', path, { query: { after: 'garbage' } })); // 400
    check('GET', path, await f.request('GET', path, { key: null })); // 401
    check('GET', path, await f.request('GET', path, { query: { campaignId: f.ids.campaignB } })); // 404
  });
  it('the pull API', () => pulled());

  it('(the check itself fails on a body, status or header the document does not allow)', () => {
    const strict = responseChecker(doc);
    const headers = { 'x-ratelimit-limit': '1', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '1' };
    const good = { status: 201, headers, body: { success: true, data: { leadId: 'ld_x' }, error: null } };
    expect(() => strict.check('POST', '/api/v1/leads', good)).not.toThrow();
    expect(() => strict.check('POST', '/api/v1/leads', { ...good, body: { ...good.body, extra: 1 } })).toThrow();
    expect(() => strict.check('POST', '/api/v1/leads', { ...good, body: { ...good.body, data: {} } })).toThrow();
    expect(() => strict.check('POST', '/api/v1/leads', { ...good, status: 202 })).toThrow();
    expect(() => strict.check('POST', '/api/v1/leads', { ...good, headers: {} })).toThrow();
  });

  const publicEndpoints = once('public', async () => {
    check('GET', '/api/health', await f.request('GET', '/api/health', { key: null }));
    check('GET', DOC, await f.request('GET', DOC, { key: null }));
  });
  it('the public endpoints', () => publicEndpoints());

  const everyLimit = once('429', async () => {
    const tight = await makeFixture('sqlite', { rateLimit: { perMinute: 1, bulkPerMinute: 1, ipPerMinute: 1 } });
    try {
      const c = tight.ids.campaignA;
      for (const [method, path, o] of [
        ['GET', '/api/v1/leads', { query: { campaignId: c } }],
        ['POST', '/api/v1/records/bulk', { body: { campaignId: c, leads: [{ phoneNumber: '+14155550400' }] } }],
        ['GET', '/api/health', { key: null }],
        ['GET', DOC, { key: null }],
      ] as const) {
        await tight.request(method, path, o);
        const limited = await tight.request(method, path, o);
        expect(limited.status, `${method} ${path}`).toBe(429);
        check(method, path, limited);
      }
    } finally {
      await tight.close();
    }
  });
  it('429 on every kind of limit: per key, bulk, per IP', () => everyLimit());

  const brokenDatabase = once('500', async () => {
    const broken = await makeFixture('sqlite');
    try {
      // a rename, not a drop: it works whatever else (a view, a foreign key) depends on the table
      await sql`alter table leads rename to leads_gone`.execute(broken.db.kysely);
      const c = broken.ids.campaignA;
      check(
        'POST',
        '/api/v1/leads',
        await broken.request('POST', '/api/v1/leads', { body: { campaignId: c, phoneNumber: '+14155550500' } }),
      );
      check('GET', '/api/v1/records', await broken.request('GET', '/api/v1/records', { query: { campaignId: c } }));
    } finally {
      await broken.close();
    }
  });
  it('500 when the database breaks under the app', () => brokenDatabase());

  const goneDatabase = once('503', async () => {
    const gone = await makeFixture('sqlite');
    await gone.db.close();
    try {
      check('GET', '/api/health', await gone.request('GET', '/api/health', { key: null }));
    } finally {
      await gone.app.close();
      await gone.limiter.close();
      await gone.store.drop();
    }
  });
  it('503 on health when the database is gone', () => goneDatabase());

  it('covered every documented status: each operation its own, and the generic ones somewhere', async () => {
    for (const prefix of PREFIXES) await everyClientError(prefix)();
    for (const run of [publicEndpoints, everyLimit, brokenDatabase, goneDatabase, outcomes, providerEvents, dnc, pulled]) await run();
    // 413, 415, 429, 500 and 503 come from the same code for every operation; one of each is enough.
    const generic = ['413', '415', '429', '500', '503'];
    const documented = Object.entries<any>(doc.paths).flatMap(([path, ops]) =>
      Object.entries<any>(ops).flatMap(([method, op]) =>
        Object.keys(op.responses).map((status) => `${method.toUpperCase()} ${path} ${status}`),
      ),
    );
    const missing = documented.filter((key) => !generic.includes(key.split(' ')[2]!) && !checker.seen.has(key));
    expect(missing).toEqual([]);
    const seenStatuses = new Set([...checker.seen].map((key) => key.split(' ')[2]));
    expect(generic.filter((status) => !seenStatuses.has(status))).toEqual([]);
  });
});

describe('the docs page', () => {
  it('is public, rate-limited per IP like /api/health, and served entirely from this server', async () => {
    const page = await f.request('GET', '/docs', { key: null });
    expect(page.status).toBe(200);
    expect(String(page.headers['content-type'])).toMatch(/^text\/html/);
    expect(page.headers['x-ratelimit-limit']).toBeDefined();
    const assets = [...String(page.body).matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(assets.length).toBeGreaterThanOrEqual(5);
    for (const asset of assets) {
      expect(asset, 'no CDN').toMatch(/^\/docs\/static\//);
      const res = await f.app.inject({ url: asset });
      expect(res.statusCode, asset).toBe(200);
      expect(res.headers['x-ratelimit-remaining'], asset).toBeDefined();
    }
    const init = await f.app.inject({ url: '/docs/static/swagger-initializer.js' });
    // Swagger UI would otherwise send the document to validator.swagger.io for a badge.
    expect(init.body).toContain('validatorUrl: null');
    const json = await f.app.inject({ url: '/docs/json' });
    expect(json.json()).toEqual(doc);
  });
});

describe('response schemas document, they do not serialize', () => {
  it('the list page, built as JSON text by the database, is sent exactly as built', async () => {
    const c = f.ids.campaignA2;
    const metadata = { z: 1, a: { nested: [1, 'two', null] }, ünï: '✓' };
    const created = await f.request('POST', '/api/v1/leads', { body: { campaignId: c, phoneNumber: '+14155550600', metadata } });
    const res = await f.app.inject({ method: 'GET', url: `/api/v1/leads?campaignId=${c}`, headers: { 'x-api-key': f.keys.writeA } });
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.body.startsWith('{"success":true,"data":{"leads":[{"_id":')).toBe(true);
    // key order and unknown-to-any-schema metadata kept, no double encoding
    expect(res.body).toContain(`"metadata":${JSON.stringify(metadata)}`);
    expect(JSON.parse(res.body).data.leads[0]._id).toBe(created.body.data.leadId);
  });
});
