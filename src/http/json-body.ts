import type { FastifyInstance } from 'fastify';

/**
 * Fastify's own JSON parser, except that a DELETE carrying
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
    return parse(request, body as string, done);
  });
}
