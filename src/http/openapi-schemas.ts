/**
 * Response schemas of the API: the envelopes, the Lead, the 429 body and the
 * rate-limit headers. Routes declare them beside their request schemas, and
 * @fastify/swagger turns both into the OpenAPI document. They describe what
 * the handlers send; they do not shape it (see the serializer in openapi.ts),
 * and test/integrators/openapi.test.ts checks real responses against them.
 */
import { LEAD_STATUSES } from '../leads/lifecycle.js';
import { externalId, phoneNumber } from '../leads/schemas.js';

export type Schema = Record<string, unknown>;

const integer = (description: string) => ({ type: 'integer', description }) as const;

/** on every response the limiter counted (all /api/v1 routes, health, docs) */
const RATE_HEADERS = {
  'X-RateLimit-Limit': integer('maximum requests in the window closest to exhaustion'),
  'X-RateLimit-Remaining': integer('requests left in that window'),
  'X-RateLimit-Reset': integer('Unix seconds when the next request will be admitted again in that window'),
} as const;
const RETRY_AFTER = {
  'Retry-After': integer('whole seconds until a retry is admitted; a retry after it succeeds'),
} as const;

export const object = (properties: Schema, required = Object.keys(properties)): Schema => ({
  type: 'object',
  required,
  additionalProperties: false,
  properties,
});
const strings = { type: 'array', items: { type: 'string' } } as const;
const count = (description: string) => ({ type: 'integer', minimum: 0, description }) as const;

/** Shared schemas, registered with app.addSchema and named by $id in components.schemas. */
export const COMPONENTS: readonly Schema[] = [
  {
    $id: 'ErrorEnvelope',
    description: 'Every failed response: success false, data null, error the message',
    ...object({ success: { const: false }, data: { type: 'null' }, error: { type: 'string' } }),
  },
  {
    $id: 'RateLimitedEnvelope',
    description: 'The 429 body: the error envelope plus the figures of the exhausted window',
    ...object({
      success: { const: false },
      data: { type: 'null' },
      error: { type: 'string', examples: ['Rate limit exceeded. Please try again later.'] },
      limit: integer('maximum requests in the exhausted window'),
      remaining: integer('requests left in it (0)'),
      reset: { type: 'string', format: 'date-time', description: 'ISO 8601 time when a request is admitted again' },
    }),
  },
  {
    $id: 'Lead',
    description: 'A lead as list returns it; optional fields are absent, never null',
    ...object(
      {
        _id: { type: 'string', description: 'opaque id, unique in the deployment' },
        campaignId: { type: 'string' },
        phoneNumber: { ...phoneNumber, description: 'E.164; absent on prefetch leads' },
        externalId: { ...externalId, description: "the client's CRM id; present only if given" },
        metadata: { type: 'object', description: 'free-form JSON object, returned as given' },
        status: { type: 'string', enum: LEAD_STATUSES },
        scheduledFor: { type: 'string', format: 'date-time', description: 'UTC, as toISOString() writes it' },
        priority: { type: 'integer', minimum: 0, maximum: 100 },
        attempts: count('call attempts made'),
        _creationTime: integer('Unix epoch milliseconds'),
      },
      ['_id', 'campaignId', 'metadata', 'status', 'priority', 'attempts', '_creationTime'],
    ),
  },
  { $id: 'LeadCreated', ...object({ leadId: { type: 'string' } }) },
  {
    $id: 'LeadPage',
    ...object({
      leads: { type: 'array', items: { $ref: 'Lead#' } },
      count: count('leads in this page'),
      cursor: { type: 'string', description: 'pass as cursor for the next page; kept after the last page, it fetches only newer leads' },
      hasMore: { type: 'boolean', description: 'true while more leads remain' },
    }),
  },
  { $id: 'LeadDeleted', ...object({ deleted: { const: true } }) },
  {
    $id: 'BulkCreateResult',
    ...object({
      created: count('leads created'),
      skipped: count('leads skipped as duplicates'),
      createdIds: { ...strings, description: 'ids of the created leads, in request order' },
      skippedIdentifiers: { ...strings, description: 'the externalId or phoneNumber each skipped lead matched' },
    }),
  },
  {
    $id: 'BulkDeleteResult',
    ...object({
      deleted: count('leads deleted'),
      notFound: count('entries that matched no lead of the campaign'),
      deletedIdentifiers: { ...strings, description: 'the identifier used for each deleted lead' },
      notFoundIdentifiers: strings,
    }),
  },
  {
    $id: 'Health',
    ...object({
      status: { type: 'string', enum: ['ok', 'unavailable'] },
      database: { type: 'string', enum: ['ok', 'unreachable'] },
    }),
  },
];

export const envelope = (data: Schema): Schema => object({ success: { const: true }, data, error: { type: 'null' } });

const ref = (id: string) => ({ $ref: `${id}#` });

/** one status of a route's `response` map; `headers` become the documented response headers */
export const reply = (description: string, body: Schema, headers: Schema = RATE_HEADERS): Schema => ({
  description,
  headers,
  content: { 'application/json': { schema: body } },
});
export const error = (description: string) => reply(description, ref('ErrorEnvelope'));

export const COMMON_ERRORS = {
  401: error('Missing API key, or Invalid or inactive API key'),
  429: reply('Rate limit exceeded. Please try again later.', ref('RateLimitedEnvelope'), { ...RATE_HEADERS, ...RETRY_AFTER }),
  500: error('Internal server error (nothing internal is disclosed)'),
  503: error('Service temporarily unavailable: the database is unreachable; retry later'),
};
export const BODY_ERRORS = {
  413: error('Request body is larger than the configured limit; not charged to the key'),
  415: error('Content-Type must be application/json'),
};
export const bad = (what: string) => error(`Invalid parameters: ${what}; the message names the field or entry (leads[N]: …)`);
const noCampaign = error('Campaign not found or access denied');

export const createLeadDoc = {
  summary: 'Create one lead',
  operationId: 'createLead',
  response: {
    201: reply('Lead created', envelope(ref('LeadCreated'))),
    400: bad('missing campaignId, neither identifier, a malformed field, or no predial function for an externalId-only lead'),
    403: error('Insufficient permissions (read key)'),
    404: noCampaign,
    409: error('Lead with externalId X already exists / Lead with phone number X already exists'),
    ...BODY_ERRORS,
    ...COMMON_ERRORS,
  },
} as const;

export const listLeadsDoc = {
  summary: 'List leads, one page at a time',
  description: 'Repeat with the returned cursor until hasMore is false. Order: creation order, oldest first.',
  operationId: 'listLeads',
  response: {
    200: reply('One page of leads', envelope(ref('LeadPage'))),
    400: bad('missing campaignId, bad status, bad limit, or Invalid cursor'),
    404: noCampaign,
    ...COMMON_ERRORS,
  },
} as const;

export const deleteLeadDoc = {
  summary: 'Delete one lead by externalId or phoneNumber',
  description: 'externalId wins when both are given. Encode the plus sign of a phone number as %2B.',
  operationId: 'deleteLead',
  response: {
    200: reply('Lead deleted', envelope(ref('LeadDeleted'))),
    400: bad('missing campaignId or neither identifier'),
    403: error('Insufficient permissions (read key), or Forbidden (campaign out of reach)'),
    404: error('Lead not found'),
    ...COMMON_ERRORS,
  },
} as const;

export const bulkCreateLeadsDoc = {
  summary: 'Create up to 1000 leads; duplicates are skipped',
  description:
    'Validated whole before anything is written, then applied atomically. Repeating a request creates no duplicates. Counts against the bulk limit.',
  operationId: 'bulkCreateLeads',
  response: {
    200: reply('Leads created and skipped', envelope(ref('BulkCreateResult'))),
    400: bad('leads missing, empty or over 1000, or an invalid entry'),
    403: error('Insufficient permissions (read key)'),
    404: noCampaign,
    ...BODY_ERRORS,
    ...COMMON_ERRORS,
  },
} as const;

export const bulkDeleteLeadsDoc = {
  summary: 'Delete up to 1000 leads by identifier',
  description: 'Leads not found do not fail the request; repeating it is safe. Counts against the bulk limit.',
  operationId: 'bulkDeleteLeads',
  response: {
    200: reply('Leads deleted and not found', envelope(ref('BulkDeleteResult'))),
    400: bad('leads missing, empty or over 1000, or an entry with neither identifier'),
    403: error('Insufficient permissions (read key), or Forbidden (campaign out of reach)'),
    ...BODY_ERRORS,
    ...COMMON_ERRORS,
  },
} as const;

export const healthDoc = {
  summary: 'Health check (public, limited per client IP)',
  operationId: 'getHealth',
  response: {
    200: reply('The service and its database answer', envelope(ref('Health'))),
    429: COMMON_ERRORS[429],
    503: reply('The database is unreachable', {
      ...object({ success: { const: false }, data: ref('Health'), error: { type: 'string' } }),
    }),
  },
} as const;

export const openApiDoc = {
  summary: 'This OpenAPI document (public, limited per client IP)',
  operationId: 'getOpenApiDocument',
  response: {
    200: reply('OpenAPI 3.1 document', { type: 'object', additionalProperties: true }),
    429: COMMON_ERRORS[429],
  },
} as const;
