/**
 * JSON Schemas of the lead routes. They validate requests (Fastify + Ajv) and
 * are the source the OpenAPI document is generated from; the exact error
 * messages for their failures come from ./messages.ts.
 */
import { STORABLE_TEXT } from '../storable.js';
import { LEAD_STATUSES } from './lifecycle.js';

const MAX_BULK = 1000;
export const MAX_PAGE = 8000;
export const DEFAULT_PAGE = 1000;
export const MAX_METADATA_BYTES = 16 * 1024;

export const phoneNumber = {
  type: 'string',
  pattern: '^\\+[1-9][0-9]{1,14}$',
  description: 'E.164: a plus sign, then 2 to 15 digits, the first not 0',
  examples: ['+14155550123'],
} as const;
export const externalId = {
  type: 'string',
  minLength: 1,
  maxLength: 255,
  pattern: STORABLE_TEXT,
  description: "the client's CRM id",
} as const;
const campaignId = { type: 'string', minLength: 1, pattern: STORABLE_TEXT } as const;

const leadInput = {
  type: 'object',
  properties: {
    phoneNumber,
    externalId,
    metadata: {
      type: 'object',
      maxJsonBytes: MAX_METADATA_BYTES,
      description: 'free-form JSON object, at most 16 KiB serialised',
    },
    scheduledFor: {
      type: 'string',
      format: 'zoned-date-time',
      description: 'ISO 8601 with a zone (Z or ±hh:mm); returned in UTC',
    },
    priority: { type: 'integer', minimum: 0, maximum: 100, default: 0 },
  },
  anyOf: [{ required: ['phoneNumber'] }, { required: ['externalId'] }],
} as const;

export const createBody = {
  type: 'object',
  required: ['campaignId'],
  properties: { campaignId, ...leadInput.properties },
  anyOf: leadInput.anyOf,
} as const;

export const bulkCreateBody = {
  type: 'object',
  required: ['campaignId', 'leads'],
  properties: {
    campaignId,
    leads: { type: 'array', minItems: 1, maxItems: MAX_BULK, items: leadInput },
  },
} as const;

const identifierEntry = {
  type: 'object',
  properties: { phoneNumber, externalId },
  anyOf: leadInput.anyOf,
} as const;

export const bulkDeleteBody = {
  type: 'object',
  required: ['campaignId', 'leads'],
  properties: {
    campaignId,
    leads: { type: 'array', minItems: 1, maxItems: MAX_BULK, items: identifierEntry },
  },
} as const;

// Query strings are validated as strings (no type coercion anywhere, so a body
// field such as priority "5" is refused rather than silently converted).
export const listQuery = {
  type: 'object',
  required: ['campaignId'],
  properties: {
    campaignId,
    status: { type: 'string', enum: LEAD_STATUSES },
    limit: {
      type: 'string',
      pattern: '^[0-9]*[1-9][0-9]*$',
      description: `page size, default ${DEFAULT_PAGE}; above ${MAX_PAGE} is lowered to ${MAX_PAGE}`,
    },
    cursor: { type: 'string', description: 'opaque cursor from a previous response' },
  },
} as const;

export const deleteQuery = {
  type: 'object',
  required: ['campaignId'],
  properties: { campaignId, phoneNumber, externalId },
  anyOf: leadInput.anyOf,
} as const;

export interface LeadInput {
  phoneNumber?: string;
  externalId?: string;
  metadata?: Record<string, unknown>;
  scheduledFor?: string;
  priority?: number;
}
export interface IdentifierEntry {
  phoneNumber?: string;
  externalId?: string;
}
