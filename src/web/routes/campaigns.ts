/** The campaign list; creating, editing (and renaming) and deleting a campaign. */
import type { FastifyInstance } from 'fastify';
import { SettingsError } from '../../campaigns/settings.js';
import { defaultValues, FormErrors, type FormValues, labelled, parseForm, valuesOf } from '../campaign-form.js';
import type { Dashboard } from '../dashboard.js';
import { href, seg } from '../html.js';
import { recyclePage } from '../views/activity.js';
import { campaignFormPage, campaignsPage, deleteCampaignPage } from '../views/campaigns.js';
import { form, params, query, send, viewer } from './support.js';

/** every field the form got wrong, or the one message of a rule across fields (e.g. webhook needs a URL) */
const problems = (err: SettingsError) => (err instanceof FormErrors ? { fieldErrors: err.fields } : { error: labelled(err.message) });

export function campaignRoutes(dash: Dashboard) {
  return async (app: FastifyInstance) => {
    app.get('/campaigns', async (request, reply) => {
      const v = viewer(request);
      const q = query(request);
      return send(reply, 200, campaignsPage(v, await dash.campaigns(v.companyId), q.done, q.n));
    });

    app.get('/campaigns/new', async (request, reply) =>
      send(reply, 200, campaignFormPage(viewer(request), { campaign: null, values: defaultValues() })),
    );

    app.post('/campaigns', async (request, reply) => {
      const v = viewer(request);
      const f = form(request) as FormValues;
      try {
        const { name, settings } = parseForm(f);
        await dash.createCampaign(v.companyId, name, settings);
      } catch (err) {
        if (!(err instanceof SettingsError)) throw err;
        return send(reply, 400, campaignFormPage(v, { campaign: null, values: f, ...problems(err) }));
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
        const { name, settings } = parseForm(f);
        await dash.updateCampaign(v.companyId, campaign.id, settings, name);
      } catch (err) {
        if (!(err instanceof SettingsError)) throw err;
        const page = campaignFormPage(v, { campaign, values: f, ...problems(err), secretSet: campaign.predial_secret !== null });
        return send(reply, 400, page);
      }
      return reply.redirect(href(`/campaigns/${seg(campaign.id)}`, { done: 'saved' }), 303);
    });

    app.get('/campaigns/:campaignId/delete', async (request, reply) => {
      const v = viewer(request);
      const campaign = await dash.campaign(v.companyId, params(request).campaignId!);
      const [counts, keys] = await Promise.all([dash.counts(v.companyId, campaign.id), dash.campaignKeys(v.companyId, campaign.id)]);
      return send(reply, 200, deleteCampaignPage(v, campaign, counts.total, keys));
    });

    app.post('/campaigns/:campaignId/delete', async (request, reply) => {
      const v = viewer(request);
      const n = await dash.deleteCampaign(v.companyId, params(request).campaignId!);
      return reply.redirect(href('/campaigns', { done: 'deleted', n: String(n) }), 303);
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
