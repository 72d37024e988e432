/** The campaign list, and creating and editing a campaign's settings. */
import type { FastifyInstance } from 'fastify';
import { SettingsError } from '../../campaigns/settings.js';
import { defaultValues, labelled, parseForm, valuesOf, type FormValues } from '../campaign-form.js';
import type { Dashboard } from '../dashboard.js';
import { href, seg } from '../html.js';
import { recyclePage } from '../views/activity.js';
import { campaignFormPage, campaignsPage } from '../views/campaigns.js';
import { form, params, query, send, viewer } from './support.js';

export function campaignRoutes(dash: Dashboard) {
  return async (app: FastifyInstance) => {
    app.get('/campaigns', async (request, reply) => {
      const v = viewer(request);
      return send(reply, 200, campaignsPage(v, await dash.campaigns(v.companyId), query(request).done));
    });

    app.get('/campaigns/new', async (request, reply) =>
      send(reply, 200, campaignFormPage(viewer(request), { campaign: null, values: defaultValues() })),
    );

    app.post('/campaigns', async (request, reply) => {
      const v = viewer(request);
      const f = form(request) as FormValues;
      try {
        await dash.createCampaign(v.companyId, f.name ?? '', parseForm(f));
      } catch (err) {
        if (!(err instanceof SettingsError)) throw err;
        return send(reply, 400, campaignFormPage(v, { campaign: null, values: f, error: labelled(err.message) }));
      }
      return reply.redirect(href('/campaigns', { done: 'created' }), 303);
    });

    app.get('/campaigns/:campaignId', async (request, reply) => {
      const v = viewer(request);
      const campaign = await dash.campaign(v.companyId, params(request).campaignId!);
      const done = query(request).done === 'saved';
      const page = campaignFormPage(v, { campaign, values: valuesOf(campaign), done, secretSet: campaign.predial_secret !== null });
      return send(reply, 200, page);
    });

    app.post('/campaigns/:campaignId', async (request, reply) => {
      const v = viewer(request);
      const campaign = await dash.campaign(v.companyId, params(request).campaignId!);
      const f = form(request) as FormValues;
      try {
        await dash.updateCampaign(v.companyId, campaign.id, parseForm(f));
      } catch (err) {
        if (!(err instanceof SettingsError)) throw err;
        const page = campaignFormPage(v, {
          campaign,
          values: f,
          error: labelled(err.message),
          secretSet: campaign.predial_secret !== null,
        });
        return send(reply, 400, page);
      }
      return reply.redirect(href(`/campaigns/${seg(campaign.id)}`, { done: 'saved' }), 303);
    });

    app.get('/campaigns/:campaignId/recycle', async (request, reply) => {
      const v = viewer(request);
      const campaign = await dash.campaign(v.companyId, params(request).campaignId!);
      return send(reply, 200, recyclePage(v, campaign, (await dash.counts(v.companyId, campaign.id)).exhausted));
    });

    app.post('/campaigns/:campaignId/recycle', async (request, reply) => {
      const v = viewer(request);
      const campaign = await dash.campaign(v.companyId, params(request).campaignId!);
      const n = await dash.recycle(campaign);
      return reply.redirect(href(`/campaigns/${seg(campaign.id)}/leads`, { done: 'recycled', n: String(n) }), 303);
    });
  };
}
