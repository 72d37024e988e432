/**
 * Sign-in attempts counted per client IP and per email, through the same
 * RateLimiter (memory or Redis) as the API. Every attempt counts, not only
 * failures: the limiter cannot look without counting, and a real user signs
 * in a few times a day.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RateLimiter, Window } from '../ratelimit/types.js';
import { normalizeEmail } from './accounts.js';

const WINDOW_MS = 15 * 60_000;

export interface SignInLimits {
  /** attempts per email per 15 minutes */
  perEmail: number;
  /** attempts per client IP per 15 minutes */
  perIp: number;
}

export const DEFAULT_SIGNIN_LIMITS: SignInLimits = { perEmail: 10, perIp: 50 };

export class SignInLimiter {
  private readonly ip: Window[];
  private readonly email: Window[];

  constructor(
    private readonly limiter: RateLimiter,
    private readonly now: () => number,
    limits: SignInLimits = DEFAULT_SIGNIN_LIMITS,
  ) {
    this.ip = [{ name: 'signin-ip', limit: limits.perIp, windowMs: WINDOW_MS }];
    this.email = [{ name: 'signin-email', limit: limits.perEmail, windowMs: WINDOW_MS }];
  }

  async admit(ip: string, email: string): Promise<{ allowed: boolean; retryAfterS: number }> {
    for (const [bucket, windows] of [
      [`signin:ip:${ip}`, this.ip],
      [`signin:email:${normalizeEmail(email)}`, this.email],
    ] as const) {
      const verdict = await this.limiter.hit(bucket, windows);
      if (!verdict.allowed) return { allowed: false, retryAfterS: Math.max(1, Math.ceil((verdict.resetAt - this.now()) / 1000)) };
    }
    return { allowed: true, retryAfterS: 0 };
  }
}

/**
 * Every dashboard POST counted per client IP in onRequest, before the session
 * lookup and before a byte of the body is read, so a flood of posts costs a
 * limiter hit each and nothing more. Refused with a 429 page.
 */
export function postLimitHook(limiter: RateLimiter, windows: readonly Window[], now: () => number, refuse: RefusePage) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> => {
    if (request.method !== 'POST') return;
    const verdict = await limiter.hit(`ip:${request.ip}`, windows);
    if (verdict.allowed) return;
    const retryAfterS = Math.max(1, Math.ceil((verdict.resetAt - now()) / 1000));
    reply.header('Retry-After', retryAfterS);
    return refuse(reply, `Too many requests from your address. Try again in ${Math.ceil(retryAfterS / 60)} minute(s).`);
  };
}

export type RefusePage = (reply: FastifyReply, message: string) => FastifyReply;
