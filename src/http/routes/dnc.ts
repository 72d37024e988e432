/**
 * The company's do-not-call list: POST /api/v1/dnc (add), POST
 * /api/v1/dnc/remove, GET /api/v1/dnc?phoneNumber= (one number) or
 * ?limit=&cursor= (a page). Thin: src/compliance/dnc.ts decides.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { addToDnc, lookUpDnc, MAX_DNC_BATCH, MAX_DNC_REASON, pageDnc, removeFromDnc } from '../../compliance/dnc.js';
import { validation } from '../../errors.js';
import { phoneNumber } from '../../leads/schemas.js';
import { STORABLE_TEXT } from '../../storable.js';
import type { Store } from '../../store/index.js';
import { sendOk } from '../envelope.js';
import { addDncDoc, getDncDoc, removeDncDoc } from '../openapi-dnc.js';

const phoneNumbers = { type: 'array', minItems: 1, maxItems: MAX_DNC_BATCH, items: phoneNumber } as const;

const addBody = {
  type: 'object',
  required: ['phoneNumbers'],
  properties: {
    phoneNumbers,
    reason: { type: 'string', maxLength: MAX_DNC_REASON, pattern: STORABLE_TEXT, description: 'why, kept with each number newly listed' },
  },
} as const;
const removeBody = { type: 'object', required: ['phoneNumbers'], properties: { phoneNumbers } } as const;
const getQuery = {
  type: 'object',
  properties: {
    phoneNumber: { ...phoneNumber, description: 'look up one number (E.164; encode the plus sign as %2B)' },
    limit: { type: 'string', pattern: '^[0-9]*[1-9][0-9]*$', description: 'page size, default 1000; above 8000 is lowered to 8000' },
    cursor: { type: 'string', description: 'opaque cursor from a previous page' },
  },
} as const;

type GetQuery = { phoneNumber?: string; limit?: string; cursor?: string };

/** a "+" left unencoded in the query arrives as a space: put it back (as the lead routes do) */
function restorePlus(request: FastifyRequest<{ Querystring: GetQuery }>, _reply: unknown, done: () => void) {
  const phone = request.query?.phoneNumber;
  if (typeof phone === 'string' && /^ [1-9][0-9]*$/.test(phone)) request.query.phoneNumber = `+${phone.slice(1)}`;
  done();
}

export function dncRoutes(store: Store, now: () => number) {
  return async (app: FastifyInstance) => {
    app.post<{ Body: { phoneNumbers: string[]; reason?: string } }>(
      '/',
      { schema: { ...addDncDoc, body: addBody }, config: { scope: 'write', bulk: true } },
      async (request, reply) =>
        sendOk(
          reply,
          200,
          await addToDnc(store, request.principal, request.body.phoneNumbers, { source: 'api', reason: request.body.reason, now: now() }),
        ),
    );

    app.post<{ Body: { phoneNumbers: string[] } }>(
      '/remove',
      { schema: { ...removeDncDoc, body: removeBody }, config: { scope: 'write', bulk: true } },
      async (request, reply) => sendOk(reply, 200, await removeFromDnc(store, request.principal, request.body.phoneNumbers)),
    );

    app.get<{ Querystring: GetQuery }>(
      '/',
      { schema: { ...getDncDoc, querystring: getQuery }, config: { scope: 'read' }, preValidation: restorePlus },
      async (request, reply) => {
        const q = request.query;
        if (q.phoneNumber === undefined) return sendOk(reply, 200, await pageDnc(store, request.principal, q));
        if (q.limit !== undefined || q.cursor !== undefined) throw validation('Give phoneNumber, or limit and cursor, not both');
        return sendOk(reply, 200, await lookUpDnc(store, request.principal, q.phoneNumber));
      },
    );
  };
}
