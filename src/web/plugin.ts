/**
 * The web dashboard, served under /dashboard by the same server as the API.
 * It authenticates with session cookies only, and the API with x-api-key
 * only: neither accepts the other's credential. Everything here is
 * encapsulated, so its form parser, hooks and HTML error pages never touch
 * /api routes.
 */
import type { Secrets } from '../crypto/secrets.js';
import cookie from '@fastify/cookie';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import { isUnavailable, statusOf } from '../http/errors.js';
import type { RateLimiter, Window } from '../ratelimit/types.js';
import type { Store } from '../store/index.js';
import { ASSETS } from './assets/index.js';
import { Dashboard } from './dashboard.js';
import { accessHook, sessionHook } from './guard.js';
import { authRoutes } from './routes/auth.js';
import { campaignRoutes } from './routes/campaigns.js';
import { dncRoutes } from './routes/dnc.js';
import { keyRoutes } from './routes/keys.js';
import { leadRoutes } from './routes/leads.js';
import { overviewRoutes } from './routes/overview.js';
import { userRoutes } from './routes/users.js';
import { webhookRoutes } from './routes/webhooks.js';
import { send } from './routes/support.js';
import { postLimitHook, SignInLimiter, type SignInLimits } from './signin-limit.js';
import { errorPage, type Viewer } from './views/layout.js';

export interface WebDeps {
  readonly store: Store;
  readonly limiter: RateLimiter;
  readonly now: () => number;
  /** counted per client IP for every POST, before its body is read */
  readonly postWindows: readonly Window[];
  readonly signInLimits?: SignInLimits;
  /** MAX_KEYS_PER_COMPANY */
  readonly maxKeysPerCompany?: number;
  /** seals the voice platforms' secrets (SECRET_KEY) */
  readonly secrets?: Secrets;
}

/** the largest form a page sends is a campaign's settings, a few KiB */
const FORM_LIMIT = 64 * 1024;
/**
 * What the pages need and nothing more: their own policy, replacing the
 * server-wide one (which allows inline styles for the /docs page): no inline
 * script or style anywhere in the dashboard.
 */
const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

function viewerOf(request: FastifyRequest): Viewer | null {
  const s = request.webSession;
  return s?.hasPassword ? { email: s.email, companyName: s.companyName, csrfToken: s.csrfToken } : null;
}

function onError(err: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  let status = err instanceof AppError ? statusOf(err.code) : (err.statusCode ?? 500);
  if (isUnavailable(err)) status = 503;
  if (status >= 500 && status !== 503) request.log.error({ err }, 'dashboard error');
  const message =
    err instanceof AppError && status === 404
      ? 'There is nothing here, or it belongs to another company.'
      : err instanceof AppError && status < 500
        ? err.message
        : status === 503
          ? 'The database is not answering right now. Try again in a moment.'
          : status === 415
            ? 'The dashboard accepts only forms sent by its own pages.'
            : status === 413
              ? `A form may be at most ${FORM_LIMIT / 1024} KiB.`
              : status < 500
                ? 'The request could not be read.'
                : 'Something went wrong on our side; it has been logged.';
  return send(reply, status, errorPage(viewerOf(request), status, message));
}

export function dashboard(deps: WebDeps) {
  return async (app: FastifyInstance) => {
    const dash = new Dashboard(deps.store, deps.now, deps.maxKeysPerCompany, deps.secrets);
    const signIns = new SignInLimiter(deps.limiter, deps.now, deps.signInLimits);

    // Forms only. The root's JSON and text parsers are dropped here, so any
    // other content type is a 415 sent before the body is read: a JSON body
    // nested 2,000,000 deep used to be parsed (seconds of blocked event loop)
    // before any session or CSRF check.
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: FORM_LIMIT }, (_req, body, done) => {
      // Object.fromEntries defines own properties, so "__proto__" is just a field name here.
      done(null, Object.fromEntries(new URLSearchParams(body as string)));
    });
    // Pages are not part of the API: keep them out of the OpenAPI document.
    app.addHook('onRoute', (route) => {
      route.schema = { ...route.schema, hide: true };
    });
    await app.register(cookie);
    app.decorateRequest('webSession', null);
    // before the session lookup: a refused POST costs one limiter hit and nothing else
    app.addHook(
      'onRequest',
      postLimitHook(deps.limiter, deps.postWindows, deps.now, (reply, message) => send(reply, 429, errorPage(null, 429, message))),
    );
    app.addHook('onRequest', sessionHook(deps.store, deps.now));
    app.addHook('preHandler', accessHook);
    app.addHook('onSend', async (request, reply) => {
      reply.header('content-security-policy', CSP);
      if (!reply.hasHeader('x-frame-options')) reply.header('x-frame-options', 'DENY');
      reply.header('x-content-type-options', 'nosniff');
      reply.header('referrer-policy', 'same-origin');
      if (!request.url.startsWith('/dashboard/assets/')) reply.header('cache-control', 'no-store');
    });
    app.setErrorHandler(onError);
    app.setNotFoundHandler((request, reply) => onError(new AppError('not_found', 'Not found') as FastifyError, request, reply));

    app.get('/assets/:name', { config: { webPublic: true } }, async (request, reply) => {
      const asset = ASSETS.get((request.params as { name: string }).name);
      if (!asset) throw new AppError('not_found', 'Not found');
      return reply.type(asset.type).header('cache-control', 'public, max-age=31536000, immutable').send(asset.body);
    });
    await app.register(authRoutes(deps, signIns));
    await app.register(overviewRoutes(dash));
    await app.register(campaignRoutes(dash));
    await app.register(leadRoutes(dash));
    await app.register(userRoutes(dash));
    await app.register(keyRoutes(dash));
    await app.register(webhookRoutes(dash));
    await app.register(dncRoutes(dash));
  };
}
