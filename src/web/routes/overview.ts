/** GET /dashboard: the overview. */
import type { FastifyInstance } from 'fastify';
import { Dashboard } from '../dashboard.js';
import { overviewPage } from '../views/overview.js';
import { send, viewer } from './support.js';

export function overviewRoutes(dash: Dashboard) {
  return async (app: FastifyInstance) => {
    app.get('/', async (request, reply) => {
      const v = viewer(request);
      const [campaigns, keys] = await Promise.all([dash.campaigns(v.companyId), dash.keys(v.companyId)]);
      const activeKeys = keys.filter((k) => k.status === 'active').length;
      const ids = campaigns.map((c) => c.campaign.id);
      const [calls, dialers] = await Promise.all([dash.activity(campaigns.map((c) => c.campaign)), dash.dialers(ids)]);
      return send(reply, 200, overviewPage(v, { totals: Dashboard.totals(campaigns), campaigns, activeKeys, activity: calls, dialers }));
    });
  };
}
