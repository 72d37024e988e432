import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors.js';
import { nestedDeeperThan } from './json-depth.js';

/** deepest nesting of arrays and objects a request body may have; the deepest real body (bulk → lead → metadata) needs a few */
export const MAX_JSON_DEPTH = 64;

/** A body refused before it was parsed; its rate-limit hit is refunded (src/http/limits.ts). */
export class BodyTooDeepError extends AppError {
  constructor() {
    super('validation', `Request body is nested deeper than ${MAX_JSON_DEPTH} levels of arrays and objects`);
  }
}

/**
 * Fastify's own JSON parser (it refuses __proto__ and constructor.prototype
 * keys), after a depth check, with one exception: a DELETE carrying
 * `Content-Type: application/json` and no body is simply a request without
 * one. The spec says requests use that content type, so clients set it on
 * every call; DELETE /leads takes its input from the query string, and
 * refusing it for an empty body was a 400 on a valid request.
 */
export function parseJsonBodies(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '' && request.method === 'DELETE') return done(null, undefined);
    if (nestedDeeperThan(body as string, MAX_JSON_DEPTH)) return done(new BodyTooDeepError(), undefined);
    return parse(request, body as string, done);
  });
}
