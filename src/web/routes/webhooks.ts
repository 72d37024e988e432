/**
 * Company settings → Webhooks: list, add (secret shown once), rotate the
 * secret (shown once) and delete after confirming, enable a disabled one,
 * and each endpoint's delivery log.
 */
import type { FastifyInstance } from 'fastify';
import type { Dashboard } from '../dashboard.js';
import { href } from '../html.js';
import { WebhookFormError } from '../webhooks.js';
import { deliveriesPage } from '../views/deliveries.js';
import { deleteWebhookPage, rotateWebhookPage, secretShownPage, webhooksPage } from '../views/webhooks.js';
import { form, params, query, send, viewer } from './support.js';

export function webhookRoutes(dash: Dashboard) {
  return async (app: FastifyInstance) => {
    const listPage = async (companyId: string) => ({
      hooks: await dash.webhooks.list(companyId),
      campaigns: (await dash.campaigns(companyId)).map((c) => c.campaign),
    });

    app.get('/settings/webhooks', async (request, reply) => {
      const v = viewer(request);
      return send(reply, 200, webhooksPage(v, { ...(await listPage(v.companyId)), done: query(request).done }));
    });

    app.post('/settings/webhooks', async (request, reply) => {
      const v = viewer(request);
      const f = form(request);
      try {
        const { webhookId, secret } = await dash.webhooks.create(v.companyId, f);
        // no-store: the page holding the only copy of the secret must not sit in a cache
        reply.header('cache-control', 'no-store');
        return send(reply, 200, secretShownPage(v, await dash.webhooks.one(v.companyId, webhookId), secret, { rotated: false }));
      } catch (err) {
        if (!(err instanceof WebhookFormError)) throw err;
        const error = { field: err.field, message: err.message };
        return send(reply, 400, webhooksPage(v, { ...(await listPage(v.companyId)), error, values: f }));
      }
    });

    app.get('/settings/webhooks/:webhookId/deliveries', async (request, reply) => {
      const v = viewer(request);
      const q = query(request);
      const hook = await dash.webhooks.one(v.companyId, params(request).webhookId!);
      const failedOnly = q.failed === '1';
      const before = q.before || undefined;
      const { tries, next } = await dash.webhooks.deliveries(v.companyId, hook.webhookId, { failedOnly, before });
      return send(reply, 200, deliveriesPage(v, { hook, tries, failedOnly, before, next }));
    });

    app.get('/settings/webhooks/:webhookId/rotate', async (request, reply) => {
      const v = viewer(request);
      return send(reply, 200, rotateWebhookPage(v, await dash.webhooks.one(v.companyId, params(request).webhookId!)));
    });

    app.post('/settings/webhooks/:webhookId/rotate', async (request, reply) => {
      const v = viewer(request);
      const hook = await dash.webhooks.one(v.companyId, params(request).webhookId!);
      const { secret } = await dash.webhooks.rotate(v.companyId, hook.webhookId);
      reply.header('cache-control', 'no-store');
      return send(reply, 200, secretShownPage(v, hook, secret, { rotated: true }));
    });

    app.get('/settings/webhooks/:webhookId/delete', async (request, reply) => {
      const v = viewer(request);
      return send(reply, 200, deleteWebhookPage(v, await dash.webhooks.one(v.companyId, params(request).webhookId!)));
    });

    app.post('/settings/webhooks/:webhookId/delete', async (request, reply) => {
      const v = viewer(request);
      await dash.webhooks.delete(v.companyId, params(request).webhookId!);
      return reply.redirect(href('/settings/webhooks', { done: 'deleted' }), 303);
    });

    app.post('/settings/webhooks/:webhookId/enable', async (request, reply) => {
      const v = viewer(request);
      await dash.webhooks.enable(v.companyId, params(request).webhookId!);
      return reply.redirect(href('/settings/webhooks', { done: 'enabled' }), 303);
    });
  };
}
