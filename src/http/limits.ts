/**
 * Which sliding windows a request counts against, and how a verdict becomes
 * the X-RateLimit-* headers. Per key after authentication; per client IP for
 * /api/health, unknown paths and failed authentication.
 */
import type { FastifyReply } from 'fastify';
import type { RateLimitConfig } from '../config.js';
import { AppError, MESSAGES } from '../errors.js';
import type { RateLimiter, Verdict, Window } from '../ratelimit/types.js';

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
): Promise<void> {
  const verdict = await limiter.hit(bucket, windows);
  const at = now();
  reply.header('X-RateLimit-Limit', verdict.limit);
  reply.header('X-RateLimit-Remaining', verdict.remaining);
  reply.header('X-RateLimit-Reset', Math.ceil(verdict.resetAt / 1000));
  if (!verdict.allowed) {
    reply.header('Retry-After', Math.max(1, Math.ceil((verdict.resetAt - at) / 1000)));
    throw new RateLimitError(verdict, at);
  }
}
