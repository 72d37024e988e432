/** The do-not-call list's routes in the OpenAPI document (src/http/routes/dnc.ts). */
import { BODY_ERRORS, bad, COMMON_ERRORS, envelope, error, object, reply, type Schema } from './openapi-schemas.js';

const count = (description: string) => ({ type: 'integer', minimum: 0, description }) as const;
const entry = {
  addedAt: { type: 'string', format: 'date-time', description: 'when the number was first listed (UTC)' },
  source: { type: 'string', enum: ['api', 'cli', 'dashboard', 'import', 'call'], description: 'call: the person asked, during a call' },
  reason: { type: 'string', description: 'absent when none was given' },
};

export const DNC_COMPONENTS: readonly Schema[] = [
  {
    $id: 'DncAdded',
    ...object({ added: count('numbers newly listed'), alreadyListed: count('numbers listed before (their entry is kept)') }),
  },
  { $id: 'DncRemoved', ...object({ removed: count('numbers taken off the list'), notListed: count('numbers that were not listed') }) },
  {
    $id: 'DncLookup',
    description: 'One number: listed, and if so when, how and why',
    ...object({ listed: { type: 'boolean' }, ...entry }, ['listed']),
  },
  {
    $id: 'DncPage',
    description: 'One page of the list, in number order',
    ...object(
      {
        entries: {
          type: 'array',
          items: object({ phoneNumber: { type: 'string', description: 'E.164' }, ...entry }, ['phoneNumber', 'addedAt', 'source']),
        },
        count: count('entries in this page'),
        cursor: { type: 'string', description: 'pass as cursor for the next page; absent while the list is empty' },
        hasMore: { type: 'boolean' },
      },
      ['entries', 'count', 'hasMore'],
    ),
  },
];

const campaignKey = "Insufficient permissions (read key), or a campaign's key (the list is the whole company's)";

export const addDncDoc = {
  summary: "Add numbers to the company's do-not-call list",
  description:
    'Up to 1000 E.164 numbers; the dialer never calls a listed number. A number already listed keeps its first date, source and reason. Counts against the bulk limit.',
  operationId: 'addDoNotCall',
  response: {
    200: reply('Numbers listed', envelope({ $ref: 'DncAdded#' })),
    400: bad('phoneNumbers missing, empty, over 1000 or not E.164, or reason'),
    403: error(campaignKey),
    ...BODY_ERRORS,
    ...COMMON_ERRORS,
  },
} as const;

export const removeDncDoc = {
  summary: "Remove numbers from the company's do-not-call list",
  description: 'Their leads become callable again. Counts against the bulk limit.',
  operationId: 'removeDoNotCall',
  response: {
    200: reply('Numbers removed', envelope({ $ref: 'DncRemoved#' })),
    400: bad('phoneNumbers missing, empty, over 1000 or not E.164'),
    403: error(campaignKey),
    ...BODY_ERRORS,
    ...COMMON_ERRORS,
  },
} as const;

export const getDncDoc = {
  summary: "Look up one number on the company's do-not-call list, or page through the list",
  description: 'With phoneNumber: that number (a DncLookup). Without: a page (a DncPage), limit and cursor as for leads.',
  operationId: 'getDoNotCall',
  response: {
    200: reply('The number, or a page of the list', envelope({ oneOf: [{ $ref: 'DncLookup#' }, { $ref: 'DncPage#' }] })),
    400: bad('phoneNumber not E.164, bad limit, Invalid cursor, or phoneNumber with limit or cursor'),
    403: error("a campaign's key (the list is the whole company's)"),
    ...COMMON_ERRORS,
  },
} as const;
