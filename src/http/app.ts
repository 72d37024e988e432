/**
 * buildApp(deps) → a Fastify instance with every route, hook and the error
 * mapping, but not listening: tests use app.inject, src/server.ts listens.
 */
import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import type { Logger } from 'pino';
import { KeyAuthenticator } from '../auth/service.js';
import type { Config } from '../config.js';
import { MESSAGES } from '../errors.js';
import { loggableUrl } from '../logger.js';
import { ajvFormats, maxJsonBytesKeyword } from '../leads/formats.js';
import { LeadService } from '../leads/service.js';
import type { RateLimiter } from '../ratelimit/types.js';
import type { Store } from '../store/index.js';
import { guard } from './auth.js';
import { failure } from './envelope.js';
import { errorHandler } from './errors.js';
import { harden, serverOptions } from './hardening.js';
import { parseJsonBodies } from './json-body.js';
import { enforce, refundBodyRefusals, windowsFor } from './limits.js';
import { logRequest } from './request-log.js';
import { registerOpenApi } from './openapi.js';
import { eventRoutes } from './routes/events.js';
import { healthRoutes } from './routes/health.js';
import { attemptRoutes } from './routes/attempts.js';
import { providerRoutes } from './routes/providers.js';
import { secretsFor } from '../crypto/secrets.js';
import { defaultHttpRequester } from '../net/http.js';
import { dncRoutes } from './routes/dnc.js';
import { leadRoutes } from './routes/leads.js';
import { dashboard } from '../web/plugin.js';

export interface AppDeps {
  readonly config: Config;
  readonly store: Store;
  readonly limiter: RateLimiter;
  readonly logger?: Logger;
  readonly now?: () => number;
}

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config, store, limiter } = deps;
  const now = deps.now ?? Date.now;
  const app = Fastify({
    ...(deps.logger ? { loggerInstance: deps.logger as FastifyBaseLogger } : { logger: false }),
    ...serverOptions(config.server),
    bodyLimit: config.bodyLimit,
    trustProxy: config.trustProxy,
    requestIdHeader: 'x-request-id',
    genReqId: () => randomUUID(),
    // One log line per request (onResponse below) instead of Fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
    ajv: {
      customOptions: {
        // Bodies are taken as sent: no coercion ("5" is not a priority), no
        // defaults injected, no properties removed; the first error is enough.
        coerceTypes: false,
        useDefaults: false,
        removeAdditional: false,
        allErrors: false,
        formats: ajvFormats,
        keywords: [maxJsonBytesKeyword],
      },
    },
  });

  await harden(app, config.server); // first, so its headers are on the guard's 401s and 429s too
  parseJsonBodies(app);
  const windows = windowsFor(config.rateLimit);
  const authenticator = new KeyAuthenticator(store.keys, config.keyCacheMs, now, (err) =>
    app.log.warn({ err }, 'could not record key use'),
  );
  app.addHook('onRequest', guard({ authenticator, limiter, windows, now, bodyLimit: config.bodyLimit }));
  app.addHook('onError', refundBodyRefusals(limiter));
  // Synchronous hooks rather than async functions: no promise and microtask
  // per hook per request.
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('x-request-id', request.id);
    done(null, payload);
  });
  if (deps.logger) {
    app.addHook('onResponse', (request, reply, done) => {
      // Phone numbers in query strings (DELETE ?phoneNumber=, GET /api/v1/dnc?phoneNumber=) are not logged.
      logRequest(request.log as Logger, {
        method: request.method,
        url: loggableUrl(request.url),
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime),
      });
      done();
    });
  }
  app.setErrorHandler(errorHandler(config.bodyLimit));
  app.setNotFoundHandler(async (request, reply) => {
    await enforce(limiter, reply, `ip:${request.ip}`, windows.ip, now);
    return reply.code(404).send(failure(MESSAGES.notFound));
  });

  const leads = new LeadService(store, now);
  await registerOpenApi(app); // first: it documents the routes registered after it
  await app.register(healthRoutes(store));
  await app.register(leadRoutes(leads), { prefix: '/api/v1/leads' });
  await app.register(leadRoutes(leads), { prefix: '/api/v1/records' });
  await app.register(attemptRoutes(store, now), { prefix: '/api/v1/attempts' });
  await app.register(dncRoutes(store, now), { prefix: '/api/v1/dnc' });
  await app.register(
    providerRoutes({ store, secrets: secretsFor(config.secretKey), publicUrl: config.publicUrl, request: defaultHttpRequester, now }),
    { prefix: '/api/v1/providers' },
  );
  await app.register(eventRoutes(store), { prefix: '/api/v1/events' });
  await app.register(
    dashboard({
      store,
      limiter,
      now,
      postWindows: windows.dashboardPost,
      maxKeysPerCompany: config.maxKeysPerCompany,
      secrets: secretsFor(config.secretKey),
    }),
    { prefix: '/dashboard' },
  );
  return app;
}
