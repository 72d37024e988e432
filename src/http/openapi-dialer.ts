/** The dialer's API routes in the OpenAPI document: outcome reports of asynchronous calls, and the platforms' webhooks. */
import { BODY_ERRORS, bad, COMMON_ERRORS, envelope, error, object, reply, type Schema } from './openapi-schemas.js';

export const DIALER_COMPONENTS: readonly Schema[] = [
  {
    $id: 'OutcomeRecorded',
    ...object({
      attemptId: { type: 'string' },
      recorded: { const: true },
      leadStatus: {
        type: ['string', 'null'],
        enum: ['raw', 'attempting', 'exhausted', 'concluded', null],
        description: "the lead's status after it; null when the lead was deleted or is held by another call",
      },
    }),
  },
  {
    $id: 'ProviderEventReceived',
    ...object({
      attemptId: { type: 'string' },
      recorded: {
        type: 'boolean',
        description: 'true when this webhook closed the attempt; false for progress, a repeat, or an attempt closed already',
      },
      outcome: { type: ['string', 'null'], description: 'the outcome recorded, when recorded' },
      leadStatus: { type: ['string', 'null'], enum: ['raw', 'attempting', 'exhausted', 'concluded', null] },
    }),
  },
];

/** signed webhooks are not rate-limited (a platform posts several per call), so no rate-limit headers */
const NOT_LIMITED = {};
const unlimitedError = (description: string) => reply(description, { $ref: 'ErrorEnvelope#' }, NOT_LIMITED);

export const providerEventsDoc = {
  summary: "A voice platform's webhook about a call (Vapi, Retell, Bland, Twilio)",
  description:
    "Where the platforms post a call's events: each create-call carries this URL (under PUBLIC_URL) with the attempt's id. No API key: the request must carry the platform's signature over the raw body (docs/providers.md), or it gets 401 and nothing changes. The first terminal event records the outcome, exactly once; other events answer 200 and change nothing.",
  operationId: 'receiveProviderEvent',
  response: {
    200: reply('Received', envelope({ $ref: 'ProviderEventReceived#' }), NOT_LIMITED),
    401: unlimitedError('Invalid or missing webhook signature'),
    404: unlimitedError('Attempt not found (no attempt of a campaign on this platform has this call id or attemptId)'),
    413: BODY_ERRORS[413],
    500: unlimitedError('Internal server error (nothing internal is disclosed)'),
    503: unlimitedError('Service temporarily unavailable: the database is unreachable; retry later'),
  },
} as const;

export const reportOutcomeDoc = {
  summary: 'Report the outcome of a call placed asynchronously',
  description:
    'For a call provider that answered a call with 202 {"accepted": true}: the attempt holds its concurrency slot until its outcome arrives here, or closes as unknown after the campaign\'s call timeout. Applied exactly once; a write key of the lead\'s company.',
  operationId: 'reportOutcome',
  response: {
    200: reply('Outcome recorded; the lead moved as the lifecycle says', envelope({ $ref: 'OutcomeRecorded#' })),
    400: bad('success, outcome, reason or durationSeconds'),
    403: error('Insufficient permissions (read key)'),
    404: error('Attempt not found (unknown, of another company or campaign, or not awaiting an outcome)'),
    409: error('Outcome already recorded for this attempt'),
    ...BODY_ERRORS,
    ...COMMON_ERRORS,
  },
} as const;
