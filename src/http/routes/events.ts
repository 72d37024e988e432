/** GET /api/v1/events: the pull API (src/events/pull.ts decides). */
import type { FastifyInstance } from 'fastify';
import { type EventsQuery, listEvents } from '../../events/pull.js';
import type { Store } from '../../store/index.js';
import { sendOk } from '../envelope.js';
import { eventsQuery, listEventsDoc } from '../openapi-events.js';

export function eventRoutes(store: Store) {
  return async (app: FastifyInstance) => {
    app.get<{ Querystring: EventsQuery }>(
      '/',
      { schema: { ...listEventsDoc, querystring: eventsQuery }, config: { scope: 'read' } },
      async (request, reply) => sendOk(reply, 200, await listEvents(store, request.principal, request.query)),
    );
  };
}
