/**
 * POST /api/v1/providers/{platform}/events: the AI voice platforms' webhooks (Vapi, Retell, Bland,
 * Twilio). No API key: each request is verified by its platform's signature over the raw body, so
 * the body is taken as text here, whatever its content type (JSON, or Twilio's form encoding).
 * Thin: src/dialer/inbound.ts decides.
 */
import type { FastifyInstance } from 'fastify';
import { type InboundDeps, receiveWebhook } from '../../dialer/inbound.js';
import { sendOk } from '../envelope.js';
import { providerEventsDoc } from '../openapi-dialer.js';

const params = {
  type: 'object',
  required: ['platform'],
  // Not an enum: the handler answers any other platform 404 Not found, as docs/providers.md and
  // the document say (an enum made it an undocumented 400 platform is invalid).
  properties: { platform: { type: 'string', description: 'vapi, retell, bland or twilio' } },
} as const;

export function providerRoutes(deps: InboundDeps) {
  return async (app: FastifyInstance) => {
    // this plugin only: every body as its raw text, for the signatures
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));
    app.post<{ Params: { platform: string }; Body: string | undefined }>(
      '/:platform/events',
      { schema: { ...providerEventsDoc, params } },
      async (request, reply) => {
        const headers: Record<string, string | undefined> = {};
        for (const [k, v] of Object.entries(request.headers)) headers[k] = Array.isArray(v) ? v.join(', ') : v;
        const received = await receiveWebhook(deps, request.params.platform, {
          body: typeof request.body === 'string' ? request.body : '',
          headers,
          path: request.url,
        });
        if (received.progress.length > 0 || received.doNotCall) {
          request.log.info({ attemptId: received.attemptId, progress: received.progress, doNotCall: received.doNotCall }, 'call progress');
        }
        return sendOk(reply, 200, {
          attemptId: received.attemptId,
          recorded: received.recorded,
          outcome: received.outcome,
          leadStatus: received.leadStatus,
        });
      },
    );
  };
}
