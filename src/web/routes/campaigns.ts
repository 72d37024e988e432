/** The campaign list, and creating and editing a campaign's settings. */
import type { FastifyInstance } from 'fastify';
import { SettingsError } from '../../campaigns/settings.js';
import { DEFAULT_SETTINGS } from '../../campaigns/settings.js';
import { labelled, parseForm, valuesOf, type FormValues } from '../campaign-form.js';
import type { Dashboard } from '../dashboard.js';
import { href, seg } from '../html.js';
import { recyclePage } from '../views/activity.js';
import { campaignFormPage, campaignsPage } from '../views/campaigns.js';
import { form, params, query, send, viewer } from './support.js';

const DEFAULT_VALUES: FormValues = {
  timezone: DEFAULT_SETTINGS.timezone,
  hours: DEFAULT_SETTINGS.hours,
  local_window: DEFAULT_SETTINGS.local_window,
  max_attempts: String(DEFAULT_SETTINGS.max_attempts),
  retry_delay: '30m',
  concurrency: String(DEFAULT_SETTINGS.concurrency),
  provider: DEFAULT_SETTINGS.provider,
  simulate_success: String(DEFAULT_SETTINGS.simulate_success),
  simulate_failures: DEFAULT_SETTINGS.simulate_failures,
  simulate_duration: DEFAULT_SETTINGS.simulate_duration,
};

export function campaignRoutes(dash: Dashboard) {
  return async (app: FastifyInstance) => {
    app.get('/campaigns', async (request, reply) => {
      const v = viewer(request);
      return send(reply, 200, campaignsPage(v, await dash.campaigns(v.companyId), query(request).done));
    });

    app.get('/campaigns/new', async (request, reply) =>
      send(reply, 200, campaignFormPage(viewer(request), { campaign: null, values: DEFAULT_VALUES })),
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
        const page = campaignFormPage(v, { campaign, values: f, error: labelled(err.message), secretSet: campaign.predial_secret !== null });
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
