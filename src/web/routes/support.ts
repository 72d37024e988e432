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
/**
 * The query string, one string a parameter. A parameter given twice comes as
 * an array, which pages would take for a string (a 500 on the first string
 * method); its values are joined with commas instead, so a page refuses it as
 * it refuses any value it cannot use (a do-not-call lookup of
 * "+14155550001,+14155550002" is not in E.164 format) rather than picking one.
 */
export function query(request: FastifyRequest): Record<string, string | undefined> {
  const q = request.query;
  if (!q || typeof q !== 'object') return {};
  const one = (v: unknown) => (typeof v === 'string' ? v : Array.isArray(v) ? v.filter((x) => typeof x === 'string').join(',') : undefined);
  return Object.fromEntries(Object.entries(q).map(([k, v]) => [k, one(v)]));
}
