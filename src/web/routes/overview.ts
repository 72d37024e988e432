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
      const rows = campaigns.map((c) => c.campaign);
      const [calls, dialers] = await Promise.all([dash.activity(rows), dash.dialers(rows)]);
      const page = overviewPage(v, {
        totals: Dashboard.totals(campaigns),
        campaigns,
        activeKeys,
        activity: calls,
        dialers,
        now: dash.now(),
      });
      return send(reply, 200, page);
    });
  };
}
