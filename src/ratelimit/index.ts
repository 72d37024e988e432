import { MemoryRateLimiter } from './memory.js';
import { RedisRateLimiter, type RateLimitLogger } from './redis.js';
import type { RateLimiter } from './types.js';

export type { RateLimiter } from './types.js';
export type { RateLimitLogger } from './redis.js';
export { MemoryRateLimiter } from './memory.js';
export { RedisRateLimiter } from './redis.js';

/** How long startup waits for a first Redis connection before going on with the fallback. */
const STARTUP_WAIT_MS = 2000;

/**
 * Redis-backed (shared across instances) when `redisUrl` is set, otherwise
 * in-memory. Startup does not fail if Redis is unreachable: the limiter
 * answers from its in-memory fallback and switches to Redis once it connects.
 */
export async function createRateLimiter(opts: {
  redisUrl?: string;
  logger?: RateLimitLogger;
  keyPrefix?: string;
  timeoutMs?: number;
}): Promise<RateLimiter> {
  if (!opts.redisUrl) return new MemoryRateLimiter();
  const limiter = new RedisRateLimiter({
    url: opts.redisUrl,
    fallback: new MemoryRateLimiter(),
    logger: opts.logger,
    keyPrefix: opts.keyPrefix,
    timeoutMs: opts.timeoutMs,
  });
  await limiter.ready(STARTUP_WAIT_MS);
  return limiter;
}
