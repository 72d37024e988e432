/**
 * fast-check arbitraries for hostile requests: mostly-valid lead bodies with
 * hostile parts (unicode, NUL, lone surrogates, huge numbers, deep nesting,
 * duplicate keys, prototype keys), hostile query strings, headers and content
 * types. Raw JSON fragments that JSON.stringify cannot produce are spliced in
 * with `Raw`.
 */
import fc from 'fast-check';
import type { InjectOptions } from 'fastify';
import { tamper } from './support.js';

class Raw {
  constructor(readonly text: string) {}
}

/** JSON text of a value that may hold Raw fragments anywhere */
function toJsonText(value: unknown): string {
  if (value instanceof Raw) return value.text;
  if (Array.isArray(value)) return `[${value.map(toJsonText).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.entries(value)
      .map(([k, v]) => `${JSON.stringify(k)}:${toJsonText(v)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

const nest = (open: string, close: string, n: number) => open.repeat(n) + '1' + close.repeat(n);
const RAW_FRAGMENTS = [
  '1e400',
  '-1e400',
  '1e-400',
  '-0',
  '123456789012345678901234567890',
  '100.0000000000000001',
  '1E2',
  '0.5e2',
  '{"__proto__":{"polluted":1}}',
  '{"constructor":{"prototype":{"polluted":1}}}',
  '{"a":1,"a":2}',
  '{"phoneNumber":"+14155550123","phoneNumber":5}',
  '"\\u0000"',
  '"\\ud800"',
  '"\\udc00\\ud800"',
  '"\\uffff"',
  '"\u2028\u2029"',
  '"\\/\\b\\f"',
  'NaN',
  'Infinity',
  "'x'",
  '01',
  '+1',
  '.5',
  '"unterminated',
  '"a\u0000b"',
].map((t) => new Raw(t));
/** nesting from harmless to deeper than any recursive walk survives */
const DEEP = [
  nest('{"a":', '}', 64),
  nest('{"a":', '}', 6000),
  nest('{"a":', '}', 100_000),
  nest('[', ']', 3000),
  nest('[', ']', 60_000),
  `{"a":${nest('[', ']', 20_000)}}`,
].map((t) => new Raw(t));

const deep = fc.constantFrom(...DEEP);
const raw = fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...RAW_FRAGMENTS) }, { weight: 1, arbitrary: deep });

const special = fc.constantFrom(
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\ud800',
  '\udfff',
  'x\ud83d',
  '😀',
  '\u202e',
  '\ufeff',
  '\u2028',
  'null',
  'undefined',
  '__proto__',
  'constructor',
  '%00',
  '%',
  '+',
  '../../etc/passwd',
  "' or 1=1 --",
  '"; drop table leads; --',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: hostile input: a template placeholder sent as text
  '${x}',
  '<script>',
  'a'.repeat(255),
  'é'.repeat(255),
  '😀'.repeat(255),
  'a'.repeat(256),
  '😀'.repeat(256),
  'x'.repeat(5000),
  '+14155550123',
  ' 14155550123',
  '+0123',
  '+1',
  '+1234567890123456',
  '+١٢٣٤٥٦٧',
  '+１４１５',
  '14155550123',
);
const hostileString = fc.oneof(
  { weight: 3, arbitrary: special },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ maxLength: 300 }) },
);
const anyJson = fc.oneof(fc.jsonValue({ maxDepth: 3 }), raw);
/** a field value: usually of the right kind, sometimes anything at all */
const field = <T>(good: fc.Arbitrary<T>, weight = 6) =>
  fc.oneof({ weight, arbitrary: good }, { weight: 2, arbitrary: hostileString }, { weight: 1, arbitrary: anyJson });

// Small pools, so that duplicates within and across requests are common.
const phone = fc.integer({ min: 0, max: 40 }).map((i) => `+1415555${String(i).padStart(4, '0')}`);
const externalId = fc.oneof(
  fc.integer({ min: 0, max: 40 }).map((i) => `crm-${i}`),
  fc.constantFrom('😀', 'ünï', 'a'.repeat(255), '😀'.repeat(255), '\u202eevil', 'x y', '+14155550000'),
);
const scheduledFor = fc.oneof(
  fc
    .date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true })
    .map((d) => d.toISOString()),
  fc.constantFrom(
    '2030-01-02T03:04:05+05:30',
    '2030-01-02T03:04:05-00:00',
    '2030-01-02t03:04z',
    '2030-02-30T00:00:00Z',
    '2030-01-02T03:04:05',
    '2030-01-02',
    '0000-01-01T00:00:00+23:59',
    '9999-12-31T23:59:59.999-23:59',
    '+275760-09-13T00:00:00Z',
    '2030-01-02T24:00:00Z',
    '2030-01-02T03:04:05.123456789Z',
    '2030-01-02T03:04:60Z',
    '1969-12-31T23:59:59Z',
  ),
);
const priority = fc.oneof(
  fc.integer({ min: 0, max: 100 }),
  fc.integer(),
  fc.double(),
  fc.constantFrom(-0, 1e308, -1e308, 2 ** 53 + 1, 100.5, '5', true),
  raw,
);
const cleanMetadata = fc.dictionary(fc.string({ unit: 'binary', maxLength: 8 }), fc.jsonValue({ maxDepth: 4 }), { maxKeys: 6 });
const metadata = fc.oneof(
  { weight: 4, arbitrary: cleanMetadata },
  {
    weight: 1,
    arbitrary: fc.constantFrom({ big: 'x'.repeat(16 * 1024 - 10) }, { big: 'x'.repeat(16 * 1024) }, { nul: '\u0000', lone: '\ud800' }),
  },
  { weight: 1, arbitrary: deep },
  { weight: 1, arbitrary: anyJson },
);
// Fields the server controls, and fields nobody knows: ignored, never stored.
const serverFields = {
  _id: fc.constantFrom('ld_forged', 1),
  status: fc.constantFrom('concluded', 'attempting', 1),
  attempts: fc.constantFrom(99, -1),
  _creationTime: fc.constantFrom(0, 'yesterday'),
  unknownField: anyJson,
};

const hostileLead = fc.record(
  {
    phoneNumber: field(phone, 8),
    externalId: field(externalId),
    metadata: field(metadata),
    scheduledFor: field(scheduledFor),
    priority,
    ...serverFields,
  },
  { requiredKeys: [] },
);
/** a lead the contract accepts (bar duplicates and campaign rules), with awkward but valid values */
const cleanLead = fc.record(
  {
    phoneNumber: phone,
    externalId,
    metadata: cleanMetadata,
    scheduledFor: fc
      .date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true })
      .map((d) => d.toISOString()),
    priority: fc.integer({ min: 0, max: 100 }),
  },
  { requiredKeys: [] },
);
const leadInput = fc.oneof({ weight: 3, arbitrary: cleanLead }, { weight: 2, arbitrary: hostileLead });
/** what the requests aim at: one path prefix, the fixture's campaigns and keys (the first key is the usual one) */
export interface Target {
  readonly prefix: string;
  readonly campaigns: readonly string[];
  readonly keys: readonly string[];
}

const campaignIdOf = (t: Target) =>
  fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom(...t.campaigns, 'cp_nope') },
    { weight: 2, arbitrary: hostileString },
    { weight: 1, arbitrary: anyJson },
  );

const leadsArray = <T>(entry: fc.Arbitrary<T>, clean: fc.Arbitrary<unknown>) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.array(clean, { minLength: 1, maxLength: 12 }) },
    {
      weight: 4,
      arbitrary: fc.array(fc.oneof({ weight: 6, arbitrary: clean }, { weight: 1, arbitrary: entry }), { minLength: 1, maxLength: 12 }),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        [],
        Array.from({ length: 1001 }, (_, i) => ({ externalId: `over-${i}` })),
      ),
    },
    { weight: 1, arbitrary: anyJson },
  );

function bodyFor(endpoint: Endpoint, t: Target): fc.Arbitrary<unknown> {
  const campaignId = campaignIdOf(t);
  const shaped =
    endpoint === 'create'
      ? fc.tuple(fc.record({ campaignId }, { requiredKeys: [] }), leadInput).map(([c, l]) => ({ ...c, ...l }))
      : endpoint === 'bulk'
        ? fc.record({ campaignId, leads: leadsArray(hostileLead, cleanLead), campaignIdTwice: fc.boolean() }, { requiredKeys: ['leads'] })
        : endpoint === 'bulk-delete'
          ? fc.record(
              {
                campaignId,
                leads: leadsArray(
                  fc.record({ phoneNumber: field(phone, 8), externalId: field(externalId), campaignId }, { requiredKeys: [] }),
                  fc.record({ phoneNumber: phone, externalId }, { requiredKeys: [] }),
                ),
              },
              { requiredKeys: [] },
            )
          : fc.constant(undefined);
  return fc.oneof({ weight: 9, arbitrary: shaped }, { weight: 1, arbitrary: anyJson });
}

/** what may happen to the JSON text on its way: mostly nothing */
const textMutation = fc.oneof(
  { weight: 24, arbitrary: fc.constant((s: string): string | Buffer => s) },
  { weight: 1, arbitrary: fc.nat().map((n) => (s: string) => s.slice(0, n % (s.length + 1))) },
  { weight: 1, arbitrary: fc.constant((s: string) => `\ufeff${s}`) },
  { weight: 1, arbitrary: fc.constant((s: string) => `${s}}garbage`) },
  {
    weight: 1,
    arbitrary: fc.constant((s: string) =>
      Buffer.concat([Buffer.from(s.slice(0, -2)), Buffer.from([0xff, 0xfe, 0x00]), Buffer.from(s.slice(-2))]),
    ),
  },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 64 }).map((bytes) => () => Buffer.from(bytes)) },
  { weight: 1, arbitrary: fc.constant(() => '') },
);

const contentType = fc.oneof(
  { weight: 6, arbitrary: fc.constant('application/json') },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      'application/json; charset=utf-8',
      'APPLICATION/JSON',
      'application/json; charset=latin1',
      'application/json;;;',
    ),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/vnd.api+json',
      'application/jsonx',
      '',
      '*/*',
      undefined,
    ),
  },
);

/** header values as HTTP can carry them: visible ASCII, space, tab and obs-text */
const headerValue = fc.string({ unit: fc.constantFrom(...'\t abcXYZ019-_.,;:=/+%"\'(){}[]@\u0080\u00ff\u00e9'), maxLength: 60 });
const keyHeader = (t: Target) =>
  fc.oneof(
    { weight: 24, arbitrary: fc.constant(t.keys[0]!) },
    { weight: 4, arbitrary: fc.constantFrom(...t.keys) },
    { weight: 2, arbitrary: fc.constantFrom(...t.keys).chain((k) => fc.integer({ min: 1, max: k.length }).map((i) => tamper(k, i))) },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(...t.keys)
        .map((k) => [k.toUpperCase(), ` ${k}`, `${k} `, `${k}0`, k.slice(0, -1), `Bearer ${k}`])
        .chain((v) => fc.constantFrom(...v)),
    },
    { weight: 1, arbitrary: headerValue },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );

const queryKey = fc.constantFrom(
  'campaignId',
  'campaignId',
  'status',
  'limit',
  'cursor',
  'phoneNumber',
  'externalId',
  '__proto__',
  'constructor',
  'campaignId[]',
  'a',
);
const queryValue = (t: Target) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...t.campaigns) },
    {
      weight: 3,
      arbitrary: fc.oneof(
        phone,
        externalId,
        fc.constantFrom(
          'raw',
          'concluded',
          'RAW',
          '1',
          '8000',
          '8001',
          '0',
          '-1',
          '1.5',
          '1e3',
          '99999999999999999999',
          'djEuMA',
          'djEuMQ',
          'AAAA',
          'x'.repeat(40),
        ),
      ),
    },
    { weight: 2, arbitrary: hostileString.map((s) => encodeURIComponent(s.replace(/[\ud800-\udfff]/g, ''))) },
    { weight: 1, arbitrary: fc.constantFrom('%', '%FF', '%00', '%ED%A0%80', '+', '+14155550123', '%2B14155550123', '=', '[]', '%%') },
  );
const randomPairs = (t: Target) =>
  fc.array(fc.tuple(queryKey, queryValue(t)), { minLength: 1, maxLength: 6 }).map((pairs) => pairs.map(([k, v]) => `${k}=${v}`).join('&'));
/** the parameters the endpoint reads, with valid or nearly valid values */
const shapedPairs = (endpoint: Endpoint, t: Target) => {
  const encodedPhone = phone.chain((p) => fc.constantFrom(encodeURIComponent(p), p, p.slice(1)));
  const fields: Record<string, fc.Arbitrary<string>> = endpoint === 'list'
    ? {
        status: fc.constantFrom('raw', 'concluded', 'exhausted', 'RAW'),
        limit: fc.constantFrom('1', '2', '7', '1000', '8000', '8001', '99999999999999999999', '0', '1.5'),
        cursor: fc.constantFrom('djEuMA', 'djEuMQ', 'djEuMTA', 'AAAA', '', 'djEuMA=='),
      }
    : { phoneNumber: encodedPhone, externalId: externalId.map(encodeURIComponent) };
  return fc.record({ campaignId: fc.constantFrom(...t.campaigns, 'cp_nope'), ...fields }, { requiredKeys: ['campaignId'] }).map((q) =>
    Object.entries(q)
      .map(([k, v]) => `${k}=${v}`)
      .join('&'),
  );
};
const queryString = (endpoint: Endpoint, t: Target) =>
  fc.oneof(
    { weight: 6, arbitrary: shapedPairs(endpoint, t) },
    { weight: 2, arbitrary: fc.tuple(shapedPairs(endpoint, t), randomPairs(t)).map(([a, b]) => `${a}&${b}`) },
    { weight: 1, arbitrary: randomPairs(t) },
    { weight: 1, arbitrary: fc.constant('') },
  );

const shorten = (s: string) => (s.length > 400 ? `${s.slice(0, 300)}…(${s.length} chars)…${s.slice(-60)}` : s);

export const ENDPOINTS = ['create', 'list', 'delete', 'bulk', 'bulk-delete'] as const;
export type Endpoint = (typeof ENDPOINTS)[number];
const ROUTE: Record<Endpoint, { method: string; path: string }> = {
  create: { method: 'POST', path: '' },
  list: { method: 'GET', path: '' },
  delete: { method: 'DELETE', path: '' },
  bulk: { method: 'POST', path: '/bulk' },
  'bulk-delete': { method: 'POST', path: '/bulk-delete' },
};

/** one hostile request aimed at an endpoint */
export function requestFor(endpoint: Endpoint, t: Target): fc.Arbitrary<InjectOptions & { payload?: string | Buffer }> {
  const route = ROUTE[endpoint];
  const method = fc.oneof(
    { weight: 12, arbitrary: fc.constant(route.method) },
    { weight: 1, arbitrary: fc.constantFrom('GET', 'POST', 'DELETE', 'PUT', 'PATCH', 'HEAD', 'OPTIONS') },
  );
  const path = fc.oneof(
    { weight: 12, arbitrary: fc.constant(`${t.prefix}${route.path}`) },
    {
      weight: 1,
      arbitrary: fc.constantFrom('/', '//', '/%FF', '/%2e%2e/', '/x', `/${'a'.repeat(200)}`).map((s) => `${t.prefix}${route.path}${s}`),
    },
    { weight: 1, arbitrary: fc.constant(`${t.prefix.toUpperCase()}${route.path}`) },
  );
  const extraHeaders = fc.dictionary(
    fc.constantFrom('x-forwarded-for', 'x-request-id', 'accept', 'accept-encoding', 'origin', 'x-http-method-override', 'x-custom'),
    headerValue,
    { maxKeys: 3 },
  );
  return fc
    .record({
      method,
      path,
      query: queryString(endpoint, t),
      key: keyHeader(t),
      type: contentType,
      extra: extraHeaders,
      body: bodyFor(endpoint, t),
      mutate: textMutation,
    })
    .map(({ method, path, query, key, type, extra, body, mutate }) => {
      const headers: Record<string, string> = { ...extra };
      if (key !== undefined) headers['x-api-key'] = key;
      if (type !== undefined) headers['content-type'] = type;
      let payload: string | Buffer | undefined;
      if (body !== undefined) {
        let text = toJsonText(body);
        // duplicate keys: JSON.parse keeps the last one
        if ((body as { campaignIdTwice?: boolean } | null)?.campaignIdTwice)
          text = text.replace(/^\{/, `{"campaignId":"${t.campaigns.at(-1)}",`);
        payload = mutate(text);
      }
      const request = { method: method as InjectOptions['method'], url: query ? `${path}?${query}` : path, headers, payload };
      // A counterexample can hold a 600 KB body: report it shortened.
      const shown = { ...request, payload: payload === undefined ? undefined : shorten(String(payload)) };
      return Object.assign(request, { [fc.toStringMethod]: () => JSON.stringify({ ...shown, url: shorten(request.url) }) });
    });
}

/**
 * One hostile request at what is not a lead route: the health check and
 * unknown paths inside and around /api (their answers are envelopes too).
 */
export function offRouteRequest(t: Target): fc.Arbitrary<InjectOptions & { payload?: string }> {
  const path = fc.oneof(
    { weight: 4, arbitrary: fc.constant('/api/health') },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        '/api',
        '/api/',
        '/api/v1',
        '/api/v1/',
        '/api/v2/leads',
        '/api/v1/lead',
        '/api/v1/leads/x/y',
        '/api/health/x',
        '/api//health',
      ),
    },
    { weight: 2, arbitrary: fc.webPath().map((p) => `/api/v1${p.startsWith('/') ? p : `/${p}`}`) },
  );
  return fc
    .record({
      method: fc.constantFrom('GET', 'POST', 'DELETE', 'PUT', 'PATCH', 'HEAD', 'OPTIONS'),
      path,
      query: fc.option(fc.webQueryParameters(), { nil: undefined }),
      key: keyHeader(t),
      type: contentType,
      extra: fc.dictionary(fc.constantFrom('x-forwarded-for', 'x-request-id', 'accept', 'origin'), headerValue, { maxKeys: 2 }),
      body: fc.option(fc.oneof(fc.json({ maxDepth: 3 }), fc.string({ maxLength: 200 })), { nil: undefined }),
    })
    .map(({ method, path, query, key, type, extra, body }) => {
      const headers: Record<string, string> = { ...extra };
      if (key !== undefined) headers['x-api-key'] = key;
      if (type !== undefined) headers['content-type'] = type;
      const payload = method === 'GET' || method === 'HEAD' ? undefined : body;
      return { method: method as InjectOptions['method'], url: query ? `${path}?${query}` : path, headers, payload };
    });
}
