/** Company settings → Users: list, add (one-time password shown once), reset a password, remove. */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../../errors.js';
import type { Dashboard } from '../dashboard.js';
import { href } from '../html.js';
import { oneTimePasswordPage, removeUserPage, resetUserPage, usersPage } from '../views/users.js';
import { form, params, query, send, viewer } from './support.js';

/** the sign-in page on the host the operator is using */
const signInUrl = (request: FastifyRequest) => `${request.protocol}://${request.host}${href('/login')}`;

export function userRoutes(dash: Dashboard) {
  return async (app: FastifyInstance) => {
    app.get('/settings/users', async (request, reply) => {
      const v = viewer(request);
      return send(reply, 200, usersPage(v, { users: await dash.users(v.companyId), done: query(request).done }));
    });

    app.post('/settings/users', async (request, reply) => {
      const v = viewer(request);
      const email = form(request).email ?? '';
      try {
        const issued = await dash.addUser(v.companyId, email);
        // no-store: the page holding the only copy of the password must not sit in a cache
        reply.header('cache-control', 'no-store');
        return send(reply, 200, oneTimePasswordPage(v, issued, signInUrl(request), { reset: false }));
      } catch (err) {
        if (!(err instanceof AppError) || (err.code !== 'validation' && err.code !== 'conflict')) throw err;
        return send(reply, 400, usersPage(v, { users: await dash.users(v.companyId), error: err.message, email }));
      }
    });

    app.get('/settings/users/:userId/reset', async (request, reply) => {
      const v = viewer(request);
      return send(reply, 200, resetUserPage(v, await dash.user(v.companyId, params(request).userId!)));
    });

    app.post('/settings/users/:userId/reset', async (request, reply) => {
      const v = viewer(request);
      const issued = await dash.resetUser(v.companyId, params(request).userId!);
      reply.header('cache-control', 'no-store');
      return send(reply, 200, oneTimePasswordPage(v, issued, signInUrl(request), { reset: true }));
    });

    app.get('/settings/users/:userId/remove', async (request, reply) => {
      const v = viewer(request);
      return send(reply, 200, removeUserPage(v, await dash.user(v.companyId, params(request).userId!)));
    });

    app.post('/settings/users/:userId/remove', async (request, reply) => {
      const v = viewer(request);
      try {
        await dash.removeUser(v.companyId, params(request).userId!);
      } catch (err) {
        if (!(err instanceof AppError) || err.code !== 'conflict') throw err;
        return send(reply, 409, usersPage(v, { users: await dash.users(v.companyId), refused: err.message }));
      }
      return reply.redirect(href('/settings/users', { done: 'removed' }), 303);
    });
  };
}
