/**
 * The dashboard's two cookies, through @fastify/cookie. Over HTTPS (directly,
 * or behind a proxy named in TRUST_PROXY) they carry the `__Host-` prefix,
 * which browsers accept only with Secure, Path=/ and no Domain: a sibling
 * subdomain or a plain-HTTP page cannot plant or overwrite them. Over plain
 * HTTP (a local install) the prefix cannot be used, and they are scoped to
 * /dashboard.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';

export const SESSION_COOKIE = 'leadline_session';
/** double-submit token for the sign-in form, before any session exists */
export const SIGNIN_COOKIE = 'leadline_signin';

const secure = (request: FastifyRequest) => request.protocol === 'https';
const nameFor = (request: FastifyRequest, name: string) => (secure(request) ? `__Host-${name}` : name);

/** the cookie's value; values leadline never sets (not base64url, too long) count as absent */
export function readCookie(request: FastifyRequest, name: string): string | undefined {
  const value = request.cookies[nameFor(request, name)];
  return value !== undefined && /^[A-Za-z0-9_-]{1,128}$/.test(value) ? value : undefined;
}

export interface CookieOptions {
  /** seconds; 0 deletes the cookie */
  maxAge: number;
  sameSite: 'lax' | 'strict';
}

export function setCookie(request: FastifyRequest, reply: FastifyReply, name: string, value: string, o: CookieOptions): void {
  reply.setCookie(nameFor(request, name), value, {
    path: secure(request) ? '/' : '/dashboard',
    maxAge: o.maxAge,
    httpOnly: true,
    sameSite: o.sameSite,
    secure: secure(request),
  });
}

export const clearCookie = (request: FastifyRequest, reply: FastifyReply, name: string): void =>
  setCookie(request, reply, name, '', { maxAge: 0, sameSite: 'lax' });
