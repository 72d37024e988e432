/** What every dashboard route shares. */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Viewer } from '../views/layout.js';

/** the parsed urlencoded form; only string fields */
export function form(request: FastifyRequest): Record<string, string | undefined> {
  const body = request.body;
  if (!body || typeof body !== 'object') return {};
  return Object.fromEntries(Object.entries(body).filter(([, v]) => typeof v === 'string'));
}

export function send(reply: FastifyReply, status: number, body: string): FastifyReply {
  return reply.code(status).type('text/html; charset=utf-8').send(body);
}

/** the signed-in user; routes that are not webPublic only run with one */
export function viewer(request: FastifyRequest): Viewer & { companyId: string } {
  const s = request.webSession!;
  return { email: s.email, companyName: s.companyName, csrfToken: s.csrfToken, companyId: s.companyId };
}

export const params = (request: FastifyRequest) => request.params as Record<string, string>;
export const query = (request: FastifyRequest) => request.query as Record<string, string | undefined>;
