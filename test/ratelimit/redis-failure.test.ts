import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryRateLimiter } from '../../src/ratelimit/memory.js';
import { RedisRateLimiter } from '../../src/ratelimit/redis.js';
import type { RateLimiter, Verdict, Window } from '../../src/ratelimit/types.js';
import { shouldRunRedisServerSuite } from './redis-available.js';

const W: Window[] = [{ name: 's', limit: 10, windowMs: 60_000 }];

class SpyLogger {
  warns: string[] = [];
  infos: string[] = [];
  warn(_obj: object, msg: string) {
    this.warns.push(msg);
  }
  info(_obj: object, msg: string) {
    this.infos.push(msg);
  }
}

class CountingFallback implements RateLimiter {
  calls = 0;
  private readonly inner = new MemoryRateLimiter();
  hit(key: string, windows: readonly Window[]): Promise<Verdict> {
    this.calls++;
    return this.inner.hit(key, windows);
  }
  refund(key: string, windows: readonly Window[], ticket: string): Promise<void> {
    return this.inner.refund(key, windows, ticket);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

/** A hang check, not a benchmark: every hit must come back well under a second. */
async function quickHit(limiter: RateLimiter, key = 'k'): Promise<Verdict> {
  const start = performance.now();
  const verdict = await limiter.hit(key, W);
  expect(performance.now() - start).toBeLessThan(1000);
  return verdict;
}

function setup(url: string) {
  const logger = new SpyLogger();
  const fallback = new CountingFallback();
  const limiter = new RedisRateLimiter({ url, fallback, logger, timeoutMs: 250 });
  return { logger, fallback, limiter };
}

/** Hits until one is answered by Redis rather than the fallback; returns that verdict. */
async function untilRedisAnswers(limiter: RateLimiter, fallback: CountingFallback): Promise<Verdict> {
  const deadline = Date.now() + 5000;
  while (Date.now() < deadline) {
    const before = fallback.calls;
    const verdict = await quickHit(limiter);
    if (fallback.calls === before) return verdict;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('Redis never answered again');
}

describe('RedisRateLimiter with nothing listening', () => {
  it('answers from the fallback at once, warns once and closes promptly', async () => {
    const { logger, fallback, limiter } = setup('redis://127.0.0.1:6399');
    const allowed: boolean[] = [];
    for (let i = 0; i < 12; i++) allowed.push((await quickHit(limiter)).allowed);
    expect(allowed).toEqual([...Array(10).fill(true), false, false]);
    // Let several reconnect attempts fail in the background.
    await new Promise((r) => setTimeout(r, 400));
    await Promise.all(Array.from({ length: 50 }, () => quickHit(limiter, 'other')));
    expect(fallback.calls).toBe(62);
    expect(logger.warns).toHaveLength(1);
    expect(logger.infos).toHaveLength(0);
    const start = performance.now();
    await limiter.close();
    expect(performance.now() - start).toBeLessThan(1000);
  });
});

const canSpawn = shouldRunRedisServerSuite();

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  return port;
}

async function startRedis(port: number): Promise<ChildProcess> {
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', tmpdir()];
  const child = spawn('redis-server', args, { stdio: 'ignore' });
  const probe = new Redis(port, '127.0.0.1', { lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 });
  probe.on('error', () => {});
  try {
    for (const deadline = Date.now() + 5000; Date.now() < deadline; ) {
      if (
        await probe.connect().then(
          () => true,
          () => false,
        )
      )
        return child;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`redis-server did not start on port ${port}`);
  } finally {
    probe.disconnect();
  }
}

async function stopRedis(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGKILL');
  await exited;
}

describe.skipIf(!canSpawn)('RedisRateLimiter across an outage of its own redis-server', () => {
  let port: number;
  let server: ChildProcess;
  let url: string;
  beforeAll(async () => {
    port = await freePort();
    url = `redis://127.0.0.1:${port}`;
    server = await startRedis(port);
  });
  afterAll(async () => {
    if (server) await stopRedis(server);
  });

  it('falls back while Redis is down and goes back to it when it returns', async () => {
    const { logger, fallback, limiter } = setup(url);
    try {
      expect(await limiter.ready(2000)).toBe(true);
      expect((await quickHit(limiter)).remaining).toBe(9);
      expect((await quickHit(limiter)).remaining).toBe(8);
      expect(fallback.calls).toBe(0);

      await stopRedis(server);
      // The fallback starts from nothing: each instance enforces on its own.
      expect((await quickHit(limiter)).remaining).toBe(9);
      expect((await quickHit(limiter)).remaining).toBe(8);
      expect((await quickHit(limiter)).remaining).toBe(7);
      expect(fallback.calls).toBe(3);
      expect(logger.warns).toHaveLength(1);

      server = await startRedis(port);
      // The restarted server is empty (no persistence), so Redis counts afresh.
      expect((await untilRedisAnswers(limiter, fallback)).remaining).toBe(9);
      expect((await quickHit(limiter)).remaining).toBe(8);
      const admin = new Redis(url);
      expect(await admin.zcard('leadline:rl:{k}:s')).toBe(2);
      await admin.quit();
      expect(logger.warns).toHaveLength(1);
      expect(logger.infos).toHaveLength(1);
    } finally {
      await limiter.close();
    }
  });

  it('does not hang when Redis is connected but stops answering', async () => {
    const { logger, fallback, limiter } = setup(url);
    const admin = new Redis(url);
    try {
      expect(await limiter.ready(2000)).toBe(true);
      await quickHit(limiter, 'paused');
      await admin.client('PAUSE', 1000, 'ALL');
      const verdicts = await Promise.all(Array.from({ length: 20 }, () => quickHit(limiter, 'paused')));
      // All 20 waited at most one timeout and were answered by the fallback.
      expect(verdicts.filter((v) => v.allowed)).toHaveLength(10);
      expect(fallback.calls).toBe(20);
      expect(logger.warns).toHaveLength(1);
      await untilRedisAnswers(limiter, fallback);
      expect(logger.infos).toHaveLength(1);
    } finally {
      await admin.quit();
      await limiter.close();
    }
  });
});
