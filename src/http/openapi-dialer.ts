/** The dialer's API routes in the OpenAPI document: outcome reports of asynchronous calls. */
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
];

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
