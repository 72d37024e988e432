/** GET /dashboard: the overview. */
import type { FastifyInstance } from 'fastify';
import { Dashboard } from '../dashboard.js';
import { overviewPage } from '../views/overview.js';
import { query, send, viewer } from './support.js';

/** ?refresh=N: seconds between refreshes of the overview, 5 to 3600; 30 when absent or out of range */
function refreshSeconds(raw: string | undefined): number {
  const n = raw !== undefined && /^\d{1,4}$/.test(raw) ? Number(raw) : 30;
  return n >= 5 && n <= 3600 ? n : 30;
}

export function overviewRoutes(dash: Dashboard) {
  return async (app: FastifyInstance) => {
    app.get('/', async (request, reply) => {
      const v = viewer(request);
      const [campaigns, keys] = await Promise.all([dash.campaigns(v.companyId), dash.keys(v.companyId)]);
      const activeKeys = keys.filter((k) => k.status === 'active').length;
      const ids = campaigns.map((c) => c.campaign.id);
      const [calls, dialers] = await Promise.all([dash.activity(campaigns.map((c) => c.campaign)), dash.dialers(ids)]);
      const page = overviewPage(v, {
        totals: Dashboard.totals(campaigns),
        campaigns,
        activeKeys,
        activity: calls,
        dialers,
        refresh: refreshSeconds(query(request).refresh),
      });
      return send(reply, 200, page);
    });
  };
}
