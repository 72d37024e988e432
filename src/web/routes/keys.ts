/** Company settings → API keys: list, create (value shown once), revoke after confirming. */
import type { FastifyInstance } from 'fastify';
import { AppError } from '../../errors.js';
import type { Dashboard } from '../dashboard.js';
import { href } from '../html.js';
import { keyCreatedPage, keysPage, reachLabel, revokeKeyPage } from '../views/keys.js';
import { form, params, query, send, viewer } from './support.js';

export function keyRoutes(dash: Dashboard) {
  return async (app: FastifyInstance) => {
    const listPage = async (companyId: string) => ({
      keys: await dash.keys(companyId),
      campaigns: (await dash.campaigns(companyId)).map((c) => c.campaign),
    });

    app.get('/settings', async (_request, reply) => reply.redirect(href('/settings/keys'), 303));

    app.get('/settings/keys', async (request, reply) => {
      const v = viewer(request);
      return send(reply, 200, keysPage(v, { ...(await listPage(v.companyId)), done: query(request).done }));
    });

    app.post('/settings/keys', async (request, reply) => {
      const v = viewer(request);
      const f = form(request);
      try {
        const { keyId, key } = await dash.createKey(v.companyId, f);
        const created = await dash.key(v.companyId, keyId);
        // no-store: the page holding the only copy of the key must not sit in a cache
        reply.header('cache-control', 'no-store');
        return send(reply, 200, keyCreatedPage(v, { key, keyId, name: created.name, scope: created.scope, reach: reachLabel(created) }));
      } catch (err) {
        if (!(err instanceof AppError) || (err.code !== 'validation' && err.code !== 'conflict')) throw err;
        return send(reply, 400, keysPage(v, { ...(await listPage(v.companyId)), error: err.message, values: f }));
      }
    });

    app.get('/settings/keys/:keyId/revoke', async (request, reply) => {
      const v = viewer(request);
      return send(reply, 200, revokeKeyPage(v, await dash.key(v.companyId, params(request).keyId!)));
    });

    app.post('/settings/keys/:keyId/revoke', async (request, reply) => {
      const v = viewer(request);
      await dash.revokeKey(v.companyId, params(request).keyId!);
      return reply.redirect(href('/settings/keys', { done: 'revoked' }), 303);
    });
  };
}
