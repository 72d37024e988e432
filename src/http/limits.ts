/**
 * Which sliding windows a request counts against, and how a verdict becomes
 * the X-RateLimit-* headers. Per key after authentication; per client IP for
 * /api/health, unknown paths and failed authentication.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RateLimitConfig } from '../config.js';
import { AppError, MESSAGES } from '../errors.js';
import type { RateLimiter, Verdict, Window } from '../ratelimit/types.js';
import { BodyTooDeepError } from './json-body.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

export interface Windows {
  readonly call: readonly Window[];
  readonly bulk: readonly Window[];
  readonly ip: readonly Window[];
  readonly authFailure: readonly Window[];
  /** every dashboard POST, per client IP, counted before its body is read */
  readonly dashboardPost: readonly Window[];
}

export function windowsFor(cfg: RateLimitConfig): Windows {
  const hour = { name: 'hour', limit: cfg.perHour, windowMs: HOUR };
  return {
    call: [{ name: 'minute', limit: cfg.perMinute, windowMs: MINUTE }, hour],
    bulk: [{ name: 'bulk', limit: cfg.bulkPerMinute, windowMs: MINUTE }, hour],
    ip: [{ name: 'ip', limit: cfg.ipPerMinute, windowMs: MINUTE }],
    // Same figure as the health check, but its own bucket, so a monitor polling
    // /api/health cannot lock a client out of authenticating.
    authFailure: [{ name: 'auth-failure', limit: cfg.ipPerMinute, windowMs: MINUTE }],
    // Its own bucket again: signed-in users posting forms and a monitor polling
    // /api/health from one address must not lock each other out.
    dashboardPost: [{ name: 'dashboard-post', limit: cfg.ipPerMinute, windowMs: MINUTE }],
  };
}

export class RateLimitError extends AppError {
  constructor(
    readonly verdict: Verdict,
    readonly now: number,
  ) {
    super('rate_limited', MESSAGES.rateLimited);
  }
}

/** counts the request, sets the headers, and throws RateLimitError when refused */
export async function enforce(
  limiter: RateLimiter,
  reply: FastifyReply,
  bucket: string,
  windows: readonly Window[],
  now: () => number,
): Promise<Verdict> {
  const verdict = await limiter.hit(bucket, windows);
  const at = now();
  rateHeaders(reply, verdict);
  if (!verdict.allowed) {
    reply.header('Retry-After', Math.max(1, Math.ceil((verdict.resetAt - at) / 1000)));
    throw new RateLimitError(verdict, at);
  }
  return verdict;
}

/** the X-RateLimit-* headers of a verdict */
export function rateHeaders(reply: FastifyReply, verdict: Verdict): void {
  reply.header('X-RateLimit-Limit', verdict.limit);
  reply.header('X-RateLimit-Remaining', verdict.remaining);
  reply.header('X-RateLimit-Reset', Math.ceil(verdict.resetAt / 1000));
}

/**
 * The headers of a request refused before its body is read (a Content-Length
 * over the limit), which costs the key nothing: counted to learn the window,
 * then given back at once, with X-RateLimit-Remaining raised to match. A full
 * window is described as it is, and the refusal stays what it was (a 413,
 * not a 429); a limiter that fails leaves it without the headers.
 */
export async function describeUncounted(
  limiter: RateLimiter,
  reply: FastifyReply,
  bucket: string,
  windows: readonly Window[],
): Promise<void> {
  const verdict = await limiter.hit(bucket, windows).catch(() => null);
  if (verdict === null) return;
  if (verdict.ticket === undefined) return rateHeaders(reply, verdict);
  await limiter.refund(bucket, windows, verdict.ticket);
  rateHeaders(reply, { ...verdict, remaining: verdict.remaining + 1 });
}

/** a key's counted hit, kept on the request so that a body refused unread or unparsed can give it back */
interface CountedHit {
  readonly bucket: string;
  readonly windows: readonly Window[];
  readonly ticket: string;
  readonly remaining: number;
}

declare module 'fastify' {
  interface FastifyRequest {
    countedHit?: CountedHit;
  }
}

/** the body checks whose refusals cost a key nothing: over the size limit, or nested too deep */
const isBodyRefusal = (err: { code?: unknown }): boolean => err.code === 'FST_ERR_CTP_BODY_TOO_LARGE' || err instanceof BodyTooDeepError;

/**
 * onError hook: a body refused for its size (read past the limit, when no
 * Content-Length declared it) or its depth is refunded, so such requests do
 * not spend the key's quota; declared sizes are given back at once (describeUncounted,
 * called from src/http/auth.ts). The X-RateLimit-Remaining already set is raised to match.
 */
export function refundBodyRefusals(limiter: RateLimiter) {
  return async (request: FastifyRequest, reply: FastifyReply, err: { code?: unknown }): Promise<void> => {
    const hit = request.countedHit;
    if (!hit || !isBodyRefusal(err)) return;
    request.countedHit = undefined;
    await limiter.refund(hit.bucket, hit.windows, hit.ticket);
    reply.header('X-RateLimit-Remaining', hit.remaining + 1);
  };
}
