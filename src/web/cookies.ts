/**
 * Reading and writing the dashboard's two cookies. Hand-written rather than
 * @fastify/cookie, whose `cookie` dependency declares Node >= 22; the values
 * we set are base64url, so the grammar needed here is small.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';

export const SESSION_COOKIE = 'leadline_session';
/** double-submit token for the sign-in form, before any session exists */
export const SIGNIN_COOKIE = 'leadline_signin';
const PATH = '/dashboard';

export function readCookie(request: FastifyRequest, name: string): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  for (const pair of header.split(';')) {
    const eq = pair.indexOf('=');
    if (eq < 0 || pair.slice(0, eq).trim() !== name) continue;
    const value = pair.slice(eq + 1).trim();
    return /^[A-Za-z0-9_-]{1,128}$/.test(value) ? value : undefined;
  }
  return undefined;
}

export interface CookieOptions {
  /** seconds; 0 deletes the cookie */
  maxAge: number;
  sameSite: 'Lax' | 'Strict';
}

export function setCookie(request: FastifyRequest, reply: FastifyReply, name: string, value: string, o: CookieOptions): void {
  const parts = [`${name}=${value}`, `Path=${PATH}`, `Max-Age=${o.maxAge}`, 'HttpOnly', `SameSite=${o.sameSite}`];
  // Secure whenever the browser reached us over TLS (directly or, with TRUST_PROXY, through a proxy).
  if (request.protocol === 'https') parts.push('Secure');
  const previous = reply.getHeader('set-cookie');
  const list = previous === undefined ? [] : Array.isArray(previous) ? previous.map(String) : [String(previous)];
  reply.header('set-cookie', [...list, parts.join('; ')]);
}

export const clearCookie = (request: FastifyRequest, reply: FastifyReply, name: string): void =>
  setCookie(request, reply, name, '', { maxAge: 0, sameSite: 'Lax' });
