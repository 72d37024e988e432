/** Sign-in, sign-out and choosing a password. */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { choosePassword, endSession, SESSION_TTL_MS, startSession, verifySignIn } from '../accounts.js';
import { clearCookie, readCookie, SESSION_COOKIE, setCookie, SIGNIN_COOKIE } from '../cookies.js';
import { safeNext } from '../guard.js';
import { href } from '../html.js';
import type { SignInLimiter } from '../signin-limit.js';
import { signInPage, passwordPage } from '../views/auth.js';
import type { WebDeps } from '../plugin.js';
import { form, send, viewer } from './support.js';

/** the sign-in form's double-submit token: reused while its cookie lives, so two tabs both work */
function signInToken(request: FastifyRequest, reply: FastifyReply): string {
  const existing = readCookie(request, SIGNIN_COOKIE);
  if (existing) return existing;
  const token = randomBytes(24).toString('base64url');
  setCookie(request, reply, SIGNIN_COOKIE, token, { maxAge: 3600, sameSite: 'strict' });
  return token;
}

export function authRoutes(deps: WebDeps, limiter: SignInLimiter) {
  const { store, now } = deps;
  return async (app: FastifyInstance) => {
    app.get('/login', { config: { webPublic: true } }, async (request, reply) => {
      if (request.webSession) return reply.redirect(href('/'), 303);
      const next = safeNext((request.query as { next?: unknown }).next);
      return send(reply, 200, signInPage({ token: signInToken(request, reply), next }));
    });

    app.post('/login', { config: { webPublic: true } }, async (request, reply) => {
      const f = form(request);
      const email = (f.email ?? '').slice(0, 254);
      const retry = (status: number, error: string) =>
        send(reply, status, signInPage({ token: signInToken(request, reply), email, error, next: safeNext(f.next) }));
      const verdict = await limiter.admit(request.ip, email);
      if (!verdict.allowed) {
        reply.header('Retry-After', verdict.retryAfterS);
        return retry(429, `Too many sign-in attempts. Try again in ${Math.ceil(verdict.retryAfterS / 60)} minute(s).`);
      }
      const signIn = await verifySignIn(store, email, f.password ?? '', now());
      // null also when a reset or a password change landed during the check: the credential it matched is gone
      const session = signIn && (await startSession(store, signIn, now()));
      if (!session) return retry(401, 'That email and password do not match an account.');
      if (request.webSession) await endSession(store, request.webSession.idHash);
      setCookie(request, reply, SESSION_COOKIE, session.token, { maxAge: SESSION_TTL_MS / 1000, sameSite: 'lax' });
      clearCookie(request, reply, SIGNIN_COOKIE);
      return reply.redirect(safeNext(f.next) ?? href('/'), 303);
    });

    app.post('/logout', { config: { webPasswordSetup: true } }, async (request, reply) => {
      if (request.webSession) await endSession(store, request.webSession.idHash);
      clearCookie(request, reply, SESSION_COOKIE);
      return reply.redirect(href('/login'), 303);
    });

    app.get('/password', { config: { webPasswordSetup: true } }, async (request, reply) => {
      const s = request.webSession!;
      const done = (request.query as { done?: string }).done === '1';
      return send(reply, 200, passwordPage(viewer(request), { first: !s.hasPassword, done }));
    });

    app.post('/password', { config: { webPasswordSetup: true } }, async (request, reply) => {
      const s = request.webSession!;
      const f = form(request);
      const error = await choosePassword(
        store,
        {
          userId: s.userId,
          keepSession: s.idHash,
          current: f.current,
          password: f.password ?? '',
          confirm: f.confirm ?? '',
        },
        now(),
      );
      if (error) return send(reply, 400, passwordPage(viewer(request), { first: !s.hasPassword, error }));
      return reply.redirect(s.hasPassword ? href('/password', { done: '1' }) : href('/'), 303);
    });
  };
}
