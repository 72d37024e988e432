/** A campaign's leads: table, search, one lead, delete; Next up. */
import type { FastifyInstance } from 'fastify';
import { isLeadStatus } from '../../leads/lifecycle.js';
import type { Dashboard } from '../dashboard.js';
import { href, seg } from '../html.js';
import { leadDialerSection, recycleAction } from '../views/activity.js';
import { deleteLeadPage, leadPage, leadsPage } from '../views/leads.js';
import { nextUpPage } from '../views/next-up.js';
import { params, query, send, viewer } from './support.js';

export function leadRoutes(dash: Dashboard) {
  return async (app: FastifyInstance) => {
    app.get('/campaigns/:campaignId/leads', async (request, reply) => {
      const v = viewer(request);
      const q = query(request);
      const campaign = await dash.campaign(v.companyId, params(request).campaignId!);
      const status = isLeadStatus(q.status) ? q.status : undefined;
      // A hand-edited cursor starts again from the first page rather than erroring.
      const cursor = q.cursor && (await dash.isCursor(campaign.id, q.cursor)) ? q.cursor : undefined;
      const search = (typeof q.q === 'string' && q.q.trim()) || undefined;
      const counts = await dash.counts(v.companyId, campaign.id);
      const page = search
        ? { ...(await dash.search(v.companyId, campaign.id, search)), next: null }
        : await dash.leadsPage(v.companyId, campaign.id, { status, cursor });
      return send(
        reply,
        200,
        leadsPage(v, {
          campaign,
          counts,
          ...page,
          status,
          q: search,
          cursor,
          done: q.done,
          recycled: Number.parseInt(q.n ?? '', 10) || 0,
          actions: recycleAction(campaign, counts.exhausted),
        }),
      );
    });

    app.get('/campaigns/:campaignId/next-up', async (request, reply) => {
      const v = viewer(request);
      return send(reply, 200, nextUpPage(v, await dash.nextUp(v.companyId, params(request).campaignId!)));
    });

    app.get('/campaigns/:campaignId/leads/:leadId', async (request, reply) => {
      const v = viewer(request);
      const p = params(request);
      const { campaign, lead } = await dash.lead(v.companyId, p.campaignId!, p.leadId!);
      const dialer = leadDialerSection(lead, await dash.leadDialer(campaign, lead));
      return send(reply, 200, leadPage(v, { campaign, lead, dialer }));
    });

    app.get('/campaigns/:campaignId/leads/:leadId/delete', async (request, reply) => {
      const v = viewer(request);
      const p = params(request);
      const { campaign, lead } = await dash.lead(v.companyId, p.campaignId!, p.leadId!);
      return send(reply, 200, deleteLeadPage(v, campaign, lead));
    });

    app.post('/campaigns/:campaignId/leads/:leadId/delete', async (request, reply) => {
      const v = viewer(request);
      const p = params(request);
      await dash.deleteLead(v.companyId, p.campaignId!, p.leadId!);
      return reply.redirect(href(`/campaigns/${seg(p.campaignId!)}/leads`, { done: 'deleted' }), 303);
    });
  };
}
