/** The pull API in the OpenAPI document: GET /api/v1/events (docs/events.md). */
import { DEFAULT_EVENTS_PAGE, MAX_EVENTS_PAGE } from '../events/pull.js';
import { EVENT_TYPES } from '../store/events.js';
import { bad, COMMON_ERRORS, envelope, error, object, reply, type Schema } from './openapi-schemas.js';
import { STORABLE_NON_EMPTY_TEXT } from '../storable.js';

export const eventsQuery = {
  type: 'object',
  properties: {
    // Optional here, so an empty one is not "required" (the message a minLength
    // on campaignId gets, src/leads/messages.ts) but a campaignId that is invalid.
    campaignId: {
      type: 'string',
      pattern: STORABLE_NON_EMPTY_TEXT,
      description: "one campaign's events; default every campaign the key reaches",
    },
    after: { type: 'string', description: 'the cursor of a previous response: only events after it' },
    limit: {
      type: 'string',
      pattern: '^[0-9]*[1-9][0-9]*$',
      description: `events per page, default ${DEFAULT_EVENTS_PAGE}; above ${MAX_EVENTS_PAGE} is lowered to ${MAX_EVENTS_PAGE}`,
    },
  },
} as const;

export const EVENT_COMPONENTS: readonly Schema[] = [
  {
    $id: 'Event',
    description: 'One event, in the Standard Webhooks payload shape, with the id its webhook deliveries carry as webhook-id',
    ...object({
      id: { type: 'string', description: 'evt_…: unique, the same on every read and every webhook try' },
      type: { type: 'string', enum: EVENT_TYPES },
      timestamp: { type: 'string', format: 'date-time', description: 'when the change committed (UTC)' },
      data: {
        type: 'object',
        additionalProperties: true,
        description:
          'leadId, campaignId and externalId where they apply; from and to (lead.status_changed); attemptId, attempt, outcome, success, reason, numberDialled and durationSeconds (attempt.*); phoneNumber (lead.created). Numbers of deleted leads are null.',
      },
    }),
  },
  {
    $id: 'EventPage',
    ...object({
      events: { type: 'array', items: { $ref: 'Event#' } },
      count: { type: 'integer', minimum: 0, description: 'events in this page' },
      cursor: {
        type: 'string',
        description: 'pass as after for the next page; kept after the last page, it returns exactly the events added since',
      },
      hasMore: { type: 'boolean', description: 'true while more events can be read now' },
    }),
  },
];

export const listEventsDoc = {
  summary: 'List events, oldest first, one page at a time',
  description:
    'Repeat with the returned cursor as after until hasMore is false; later, the same cursor returns exactly the events added since, none lost, none twice. A campaign-restricted key reads only its campaign.',
  operationId: 'listEvents',
  response: {
    200: reply('One page of events', envelope({ $ref: 'EventPage#' })),
    400: bad('bad limit, or Invalid cursor'),
    404: error('Campaign not found or access denied'),
    ...COMMON_ERRORS,
  },
} as const;
