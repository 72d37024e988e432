/**
 * Who is asking, and may they: the session from its cookie, the CSRF checks
 * on every POST, and the redirects for pages that need a signed-in user.
 *
 * CSRF has three layers: cookies are SameSite=Lax (a cross-site POST carries
 * none), a POST whose Sec-Fetch-Site says another origin sent it is refused,
 * and every form carries the session's token, compared in constant time.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { sameText } from '../crypto/digest.js';
import { AppError } from '../errors.js';
import type { SessionView } from '../store/sessions.js';
import type { Store } from '../store/index.js';
import { loadSession, sessionIdHash } from './accounts.js';
import { readCookie, SESSION_COOKIE, SIGNIN_COOKIE } from './cookies.js';
import { href } from './html.js';

interface WebSession extends SessionView {
  idHash: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    webSession: WebSession | null;
  }
  interface FastifyContextConfig {
    /** dashboard pages reachable without a session (sign-in, assets) */
    webPublic?: boolean;
    /** reachable by a user who must still choose a password */
    webPasswordSetup?: boolean;
  }
}

class CsrfError extends AppError {
  constructor() {
    super('forbidden', 'This form was not sent by a leadline page you opened (or your session ended). Reload the page and try again.');
  }
}

/** only a path inside the dashboard, so the sign-in form cannot redirect elsewhere */
export function safeNext(next: unknown): string | undefined {
  return typeof next === 'string' && /^\/dashboard(\/[A-Za-z0-9._~%/?=&-]*)?$/.test(next) && !next.includes('//') ? next : undefined;
}

export function sessionHook(store: Store, now: () => number) {
  return async (request: FastifyRequest): Promise<void> => {
    request.webSession = null;
    const token = readCookie(request, SESSION_COOKIE);
    if (!token) return;
    const session = await loadSession(store, token, now());
    if (session) request.webSession = { ...session, idHash: sessionIdHash(token) };
  };
}

const formField = (request: FastifyRequest, name: string): string | undefined => {
  const body = request.body as Record<string, unknown> | undefined;
  const value = body && typeof body === 'object' ? body[name] : undefined;
  return typeof value === 'string' ? value : undefined;
};

/** runs after the body is parsed, before any handler */
export async function accessHook(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> {
  const { webPublic, webPasswordSetup } = request.routeOptions.config;
  const session = request.webSession;
  if (request.method === 'POST') {
    const site = request.headers['sec-fetch-site'];
    if (site === 'cross-site' || site === 'same-site') throw new CsrfError();
    const expected = webPublic ? readCookie(request, SIGNIN_COOKIE) : session?.csrfToken;
    if (!sameText(formField(request, '_csrf') || null, expected || null)) throw new CsrfError();
    if (!webPublic && session && !session.hasPassword && !webPasswordSetup) throw new CsrfError();
    return;
  }
  if (webPublic) return;
  if (!session) {
    const next = safeNext(request.url);
    return reply.redirect(href('/login', { next: next === href('/') ? undefined : next }), 303);
  }
  if (!session.hasPassword && !webPasswordSetup) return reply.redirect(href('/password'), 303);
}
