/**
 * Helpers for the integrator suites: the routes Fastify really registered, a
 * validator of real responses against the served OpenAPI document, and a
 * fetch that sends the typed client's requests into an in-process app.
 */
import { createHmac } from 'node:crypto';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import { createCampaign } from '../../src/campaigns/service.js';
import { isZonedDateTime } from '../../src/leads/formats.js';
import type { Fixture, Reply } from '../helpers/fixture.js';

export type OpenApiDocument = Record<string, any>;

/** every METHOD path Fastify routes, read from its own route tree (HEAD left out) */
export function registeredRoutes(app: FastifyInstance): { method: string; url: string }[] {
  const routes: { method: string; url: string }[] = [];
  const stack: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const m = /^((?:│ {3}| {4})*)(?:├── |└── )(.*?)(?: \(([^)]*)\))?$/.exec(line);
    if (!m) continue;
    const depth = m[1]!.length / 4;
    stack.length = depth;
    stack.push(m[2]!);
    for (const method of m[3]?.split(', ') ?? []) if (method !== 'HEAD') routes.push({ method, url: stack.join('') });
  }
  return routes;
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

const pointer = (...tokens: string[]) => tokens.map((t) => t.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

/**
 * Checks a real response against the document: its status is documented for
 * the operation, its body validates against that status's schema, and every
 * documented header is there.
 */
export function responseChecker(doc: OpenApiDocument) {
  // The document as one JSON Schema resource, so its #/components refs resolve.
  // ajv is a dependency of Fastify; here it only checks test output.
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
  // date-time as RFC 3339 requires it (what toISOString writes), stricter than the server's reader
  ajv.addFormat('date-time', (s: string) => RFC3339.test(s) && !Number.isNaN(Date.parse(s)));
  ajv.addFormat('zoned-date-time', isZonedDateTime);
  ajv.addSchema(doc, 'openapi');
  const seen = new Set<string>();

  function check(method: string, path: string, res: Reply): void {
    const where = `${method} ${path} → ${res.status}`;
    const operation = doc.paths[path]?.[method.toLowerCase()];
    expect(operation, `${method} ${path} is not in the document`).toBeDefined();
    const documented = operation.responses[String(res.status)];
    expect(documented, `${where} is not documented (body ${JSON.stringify(res.body)})`).toBeDefined();
    const validate = ajv.getSchema(
      `openapi#/${pointer('paths', path, method.toLowerCase(), 'responses', String(res.status), 'content', 'application/json', 'schema')}`,
    )!;
    expect(validate(res.body), `${where}: ${JSON.stringify(validate.errors)} in ${JSON.stringify(res.body).slice(0, 300)}`).toBe(true);
    for (const [name, ref] of Object.entries<any>(documented.headers ?? {})) {
      const header = ref.$ref ? doc.components.headers[ref.$ref.split('/').pop()] : ref;
      const value = res.headers[name.toLowerCase()];
      expect(value, `${where}: header ${name} missing`).toBeDefined();
      if (header.schema.type === 'integer') expect(String(value), `${where}: header ${name}`).toMatch(/^\d+$/);
    }
    seen.add(`${method} ${path} ${res.status}`);
  }
  return { check, seen };
}

/** a fetch for openapi-fetch that answers from app.inject: the typed client without a port */
export function injectFetch(app: FastifyInstance) {
  return async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    const body = request.body ? await request.text() : undefined;
    const res = await app.inject({
      method: request.method as 'GET',
      url: url.pathname + url.search,
      headers: Object.fromEntries(request.headers),
      ...(body === undefined ? {} : { payload: body }),
    });
    const headers = new Headers();
    for (const [name, value] of Object.entries(res.headers)) if (value !== undefined) headers.set(name, String(value));
    return new Response(res.statusCode === 204 ? null : res.body, { status: res.statusCode, headers });
  };
}

/**
 * A Retell campaign of company A with one call accepted (attempt `at_<tag>`, Retell call
 * `call_<tag>`), and a poster of Retell's signed `call_ended` for any call id, signed with
 * `key` (the campaign's secret by default).
 */
export async function acceptedRetellCall(f: Fixture, tag: string, phoneNumber: string) {
  const { campaignId } = await createCampaign(f.db, {
    companyId: f.ids.companyA,
    name: 'Retell',
    provider: 'retell',
    provider_secret: 'retell-key',
    provider_options: JSON.stringify({ fromNumber: '+14155550100' }),
  });
  const { leadId } = (await f.request('POST', '/api/v1/leads', { body: { campaignId, phoneNumber } })).body.data;
  const [lead] = await f.db.queue.claim({
    campaignId,
    maxAttempts: 3,
    workerId: 'w',
    limit: 5,
    now: Date.now(),
    leaseMs: 60_000,
    openZones: null,
  });
  expect(lead!.id).toBe(leadId);
  const now = Date.now();
  await f.db.queue.open([{ attemptId: `at_${tag}`, lead: lead!, phoneNumber, startedAt: now, deadlineAt: now + 60_000 }], now);
  await f.db.queue.accept(`at_${tag}`, { providerCallId: `call_${tag}`, deadlineAt: now + 60_000 });
  const post = (callId: string, key = 'retell-key') => {
    const body = JSON.stringify({ event: 'call_ended', call: { call_id: callId, disconnection_reason: 'user_hangup', metadata: {} } });
    const ts = Date.now();
    const d = createHmac('sha256', key)
      .update(body + ts)
      .digest('hex');
    return f.request('POST', '/api/v1/providers/retell/events', {
      key: null,
      body,
      headers: { 'content-type': 'application/json', 'x-retell-signature': `v=${ts},d=${d}` },
    });
  };
  return { campaignId, leadId, post };
}
