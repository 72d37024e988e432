/** POST /api/v1/attempts/{attemptId}/outcome: the end of a call placed asynchronously. Thin: the dialer's outcomes.ts decides. */
import type { FastifyInstance } from 'fastify';
import { type OutcomeReport, reportOutcome } from '../../dialer/outcomes.js';
import type { Store } from '../../store/index.js';
import { sendOk } from '../envelope.js';
import { reportOutcomeDoc } from '../openapi-dialer.js';
import { STORABLE_TEXT } from '../../storable.js';

const params = {
  type: 'object',
  required: ['attemptId'],
  properties: { attemptId: { type: 'string', minLength: 1, maxLength: 100, pattern: STORABLE_TEXT } },
} as const;

const body = {
  type: 'object',
  required: ['success', 'outcome'],
  properties: {
    success: { type: 'boolean', description: 'true concludes the lead' },
    outcome: {
      type: 'string',
      minLength: 1,
      maxLength: 100,
      pattern: STORABLE_TEXT,
      description: 'a short code: answered, no-answer, busy, voicemail, …',
    },
    reason: { type: 'string', maxLength: 500, pattern: STORABLE_TEXT },
    durationSeconds: { type: 'number', minimum: 0, maximum: 86_400 },
  },
} as const;

export function attemptRoutes(store: Store, now: () => number) {
  return async (app: FastifyInstance) => {
    app.post<{ Params: { attemptId: string }; Body: OutcomeReport }>(
      '/:attemptId/outcome',
      { schema: { ...reportOutcomeDoc, params, body }, config: { scope: 'write' } },
      async (request, reply) =>
        sendOk(reply, 200, await reportOutcome(store, request.principal, request.params.attemptId, request.body, now())),
    );
  };
}
