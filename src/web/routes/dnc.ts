/** Company settings → Do-not-call list: look up, add, remove after confirming, and the list a page at a time. */
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Dashboard } from '../dashboard.js';
import { DncFormErrors, readDncForm, readSearch } from '../dnc.js';
import { href } from '../html.js';
import { dncPage, type DncView, removeDncPage } from '../views/dnc.js';
import type { Viewer } from '../views/layout.js';
import { form, query, send, viewer } from './support.js';

export function dncRoutes(dash: Dashboard) {
  return async (app: FastifyInstance) => {
    /** the page with the list's first page (or the one asked for) and whatever this request adds */
    const show = async (
      reply: FastifyReply,
      v: Viewer & { companyId: string },
      status: number,
      extra: Partial<DncView>,
      cursor?: string,
    ) => {
      const [total, list] = await Promise.all([dash.dnc.count(v.companyId), dash.dnc.page(v.companyId, cursor)]);
      const next = list.hasMore ? list.cursor : undefined;
      return send(reply, status, dncPage(v, { total, entries: list.entries, cursor, next, ...extra }));
    };

    app.get('/settings/dnc', async (request, reply) => {
      const v = viewer(request);
      const q = query(request);
      const cursor = q.cursor || undefined;
      const done = { added: q.added, already: q.already, removed: q.removed, notListed: q.notListed };
      if (q.phoneNumber === undefined || q.phoneNumber.trim() === '') return show(reply, v, 200, { done }, cursor);
      try {
        const phoneNumber = readSearch(q.phoneNumber);
        return show(reply, v, 200, { search: { phoneNumber, ...(await dash.dnc.lookUp(v.companyId, phoneNumber)) } }, cursor);
      } catch (err) {
        if (!(err instanceof DncFormErrors)) throw err;
        return show(reply, v, 400, { errors: err.fields, values: { phoneNumber: q.phoneNumber } }, cursor);
      }
    });

    app.post('/settings/dnc', async (request, reply) => {
      const v = viewer(request);
      const f = form(request);
      try {
        const { numbers, reason } = readDncForm(f, { reason: true });
        const r = await dash.dnc.add(v.companyId, numbers, reason);
        return reply.redirect(href('/settings/dnc', { added: String(r.added), already: String(r.alreadyListed) }), 303);
      } catch (err) {
        if (!(err instanceof DncFormErrors)) throw err;
        return show(reply, v, 400, { errors: err.fields, values: f });
      }
    });

    app.get('/settings/dnc/remove', async (request, reply) => {
      const v = viewer(request);
      const phoneNumber = readSearch(query(request).phoneNumber ?? '');
      return send(reply, 200, removeDncPage(v, [phoneNumber]));
    });

    // Unconfirmed (the form on the list page): checked, then asked about. Confirmed: removed.
    app.post('/settings/dnc/remove', async (request, reply) => {
      const v = viewer(request);
      const f = form(request);
      try {
        const { numbers } = readDncForm(f, { reason: false });
        if (f.confirmed !== 'yes') return send(reply, 200, removeDncPage(v, numbers));
        const r = await dash.dnc.remove(v.companyId, numbers);
        return reply.redirect(href('/settings/dnc', { removed: String(r.removed), notListed: String(r.notListed) }), 303);
      } catch (err) {
        if (!(err instanceof DncFormErrors)) throw err;
        return show(reply, v, 400, { errors: err.fields, values: { ...f, form: 'remove' } });
      }
    });
  };
}
