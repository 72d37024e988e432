import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRateLimiter, MemoryRateLimiter, RedisRateLimiter } from '../../src/ratelimit/index.js';
import type { RateLimiter } from '../../src/ratelimit/types.js';
import { checkSlidingWindowProperty } from './model.js';
import { checkRefunds } from './refund.js';
import { REDIS_URL, shouldRunRedisSuite } from './redis-available.js';

const redisUp = await shouldRunRedisSuite();
const prefix = `test:ratelimit:${randomUUID()}:`;

/** Fails the test if the limiter ever falls back: these tests must be answered by Redis. */
const noFallback: RateLimiter = {
  hit: async () => {
    throw new Error('fallback used: Redis did not answer');
  },
  refund: async () => {
    throw new Error('fallback used: Redis did not answer');
  },
  close: async () => {},
};

async function connected(opts: Partial<ConstructorParameters<typeof RedisRateLimiter>[0]>) {
  const limiter = new RedisRateLimiter({ url: REDIS_URL, fallback: noFallback, timeoutMs: 2000, ...opts });
  expect(await limiter.ready(2000)).toBe(true);
  return limiter;
}

describe.skipIf(!redisUp)('RedisRateLimiter on a real Redis', () => {
  let admin: Redis;
  beforeAll(async () => {
    // Fails fast (instead of queueing) when CI=true forces this suite to run without Redis.
    admin = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    admin.on('error', () => {});
    await admin.connect().catch(() => {
      throw new Error(`Redis is unreachable at ${REDIS_URL} (required because CI=true)`);
    });
  });
  afterAll(async () => {
    if (admin?.status !== 'ready') return admin?.disconnect();
    const keys = await admin.keys(`${prefix}*`);
    if (keys.length > 0) await admin.del(...keys);
    await admin.quit();
  });

  it('never admits more than limit in any window and matches the reference model', async () => {
    const clock = { t: 1_700_000_000_000 };
    const limiter = await connected({ keyPrefix: `${prefix}prop:`, now: () => clock.t });
    try {
      // Window lengths are also key TTLs in real ms, so keep them well above
      // the real duration of one run.
      const scale = { unitMs: 100, minWindowUnits: 5, maxWindowUnits: 30, maxAdvanceUnits: 15 };
      await checkSlidingWindowProperty(limiter, clock, scale, 30);
    } finally {
      await limiter.close();
    }
  });

  it('refunds a hit in every window, once, and never one that has left its window (REFUND_SCRIPT)', async () => {
    const clock = { t: 1_700_000_000_000 };
    const limiter = await connected({ keyPrefix: `${prefix}refund:`, now: () => clock.t });
    try {
      await checkRefunds(limiter, clock, '');
      // the member is gone from Redis itself, not just from the verdicts
      const w = [{ name: 'z', limit: 5, windowMs: 60_000 }];
      const v = await limiter.hit('direct', w);
      expect(await admin.zcard(`${prefix}refund:{direct}:z`)).toBe(1);
      await limiter.refund('direct', w, v.ticket!);
      expect(await admin.zcard(`${prefix}refund:{direct}:z`)).toBe(0);
    } finally {
      await limiter.close();
    }
  });

  it('admits exactly limit hits fired in parallel from three instances', async () => {
    const limiters = await Promise.all([0, 1, 2].map(() => connected({ keyPrefix: `${prefix}conc:` })));
    const w = [{ name: 'm', limit: 100, windowMs: 60_000 }];
    try {
      const verdicts = await Promise.all(limiters.flatMap((l) => Array.from({ length: 100 }, () => l.hit('shared', w))));
      const admitted = verdicts.filter((v) => v.allowed);
      expect(admitted).toHaveLength(100);
      // Every admission saw a different count: no two read the same state.
      expect(admitted.map((v) => v.remaining).sort((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, i) => i));
      expect(verdicts.filter((v) => !v.allowed).every((v) => v.remaining === 0)).toBe(true);
      expect(await admin.zcard(`${prefix}conc:{shared}:m`)).toBe(100);
      expect(await admin.pttl(`${prefix}conc:{shared}:m`)).toBeGreaterThan(50_000);
    } finally {
      await Promise.all(limiters.map((l) => l.close()));
    }
  });

  it('leaves no trace of refused hits and expires keys by TTL', async () => {
    const limiter = await connected({ keyPrefix: `${prefix}ttl:` });
    try {
      expect((await limiter.hit('k', [{ name: 'off', limit: 0, windowMs: 1000 }])).allowed).toBe(false);
      expect(await admin.exists(`${prefix}ttl:{k}:off`)).toBe(0);
      await limiter.hit('k', [{ name: 's', limit: 1, windowMs: 200 }]);
      expect(await admin.exists(`${prefix}ttl:{k}:s`)).toBe(1);
      await new Promise((r) => setTimeout(r, 300));
      expect(await admin.exists(`${prefix}ttl:{k}:s`)).toBe(0);
    } finally {
      await limiter.close();
    }
  });

  it('keeps enforcing after the limit of a key is lowered', async () => {
    const clock = { t: 1_700_000_000_000 };
    const limiter = await connected({ keyPrefix: `${prefix}lowered:`, now: () => clock.t });
    const at = (dt: number, limit: number) => {
      clock.t = 1_700_000_000_000 + dt;
      return limiter.hit('k', [{ name: 's', limit, windowMs: 1000 }]);
    };
    try {
      for (let dt = 0; dt < 5; dt++) await at(dt, 5);
      // Room for one more once 4 of the 5 have left: when the one at dt=3 does.
      expect(await at(10, 2)).toEqual({ allowed: false, limit: 2, remaining: 0, resetAt: 1_700_000_001_003 });
      expect((await at(1002, 2)).allowed).toBe(false);
      expect((await at(1003, 2)).allowed).toBe(true);
    } finally {
      await limiter.close();
    }
  });

  it('createRateLimiter picks Redis when a URL is given', async () => {
    const limiter = await createRateLimiter({ redisUrl: REDIS_URL, keyPrefix: `${prefix}factory:` });
    try {
      expect(limiter).toBeInstanceOf(RedisRateLimiter);
      await limiter.hit('k', [{ name: 's', limit: 5, windowMs: 10_000 }]);
      expect(await admin.zcard(`${prefix}factory:{k}:s`)).toBe(1);
    } finally {
      await limiter.close();
    }
  });
});

describe('RedisRateLimiter refunds while Redis is down', () => {
  it('a hit the fallback answered is refunded to the fallback', async () => {
    const fallback = new MemoryRateLimiter();
    // nothing listens on port 1: every hit is answered by the fallback
    const limiter = new RedisRateLimiter({ url: 'redis://127.0.0.1:1', fallback, timeoutMs: 100 });
    const w = [{ name: 's', limit: 1, windowMs: 60_000 }];
    try {
      const first = await limiter.hit('k', w);
      expect(first.allowed).toBe(true);
      expect((await limiter.hit('k', w)).allowed).toBe(false);
      await limiter.refund('k', w, first.ticket!);
      expect((await fallback.hit('k', w)).allowed).toBe(true);
    } finally {
      await limiter.close();
    }
  });
});

describe('createRateLimiter without Redis', () => {
  it('returns an in-memory limiter', async () => {
    const limiter = await createRateLimiter({});
    expect(limiter).toBeInstanceOf(MemoryRateLimiter);
    await limiter.close();
  });
});
