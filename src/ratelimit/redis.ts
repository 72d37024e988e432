/**
 * Redis-backed sliding-window limiter shared by every app instance.
 *
 * Failure policy: availability over strictness. A request never waits on Redis
 * for more than `timeoutMs`: the offline queue is off (commands fail at once
 * while disconnected), every command has a timeout, and ioredis reconnects in
 * the background with capped backoff. On any Redis error the hit is answered
 * by `fallback`, an in-memory limiter local to this instance, so while Redis is
 * down each instance enforces the limits on its own and N instances may
 * together admit up to N× the limit; no request is refused because of the
 * outage. One warn is logged when an outage starts and one info when Redis
 * answers again; after that hits go to Redis (the fallback's counts are not
 * carried over). A hit that timed out may still be applied by Redis later, so
 * it can be counted by both; that errs on the strict side and only for hits
 * caught in the hiccup.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import type { RateLimiter, Verdict, Window } from './types.js';
import { HIT_SCRIPT, REFUND_SCRIPT } from './redis-script.js';
import { decide, validateWindows, type WindowState } from './verdict.js';

export interface RateLimitLogger {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

export interface RedisRateLimiterOptions {
  url: string;
  /** default 'leadline:rl:' */
  keyPrefix?: string;
  /** longest a hit waits on Redis before using the fallback; default 250 */
  timeoutMs?: number;
  /** answers while Redis is unavailable; closed by close() */
  fallback: RateLimiter;
  logger?: RateLimitLogger;
  /** tests only: fixed clock instead of Redis TIME */
  now?: () => number;
}

type HitClient = Redis & {
  rateLimitHit(...args: string[]): Promise<number[]>;
  rateLimitRefund(...args: string[]): Promise<number>;
};

/** tickets of hits the fallback answered, so their refunds go back to it */
const FALLBACK_TICKET = 'fallback:';

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Redis did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

export class RedisRateLimiter implements RateLimiter {
  private readonly client: HitClient;
  private readonly prefix: string;
  private readonly timeoutMs: number;
  private readonly member = `${randomUUID()}:`;
  private seq = 0;
  private down = false;
  private probing = false;
  private closing = false;

  constructor(private readonly opts: RedisRateLimiterOptions) {
    this.prefix = opts.keyPrefix ?? 'leadline:rl:';
    this.timeoutMs = opts.timeoutMs ?? 250;
    this.client = new Redis(opts.url, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      // A hit that timed out was already answered by the fallback; resending
      // it after a reconnect would count it a second time.
      autoResendUnfulfilledCommands: false,
      commandTimeout: this.timeoutMs,
      connectTimeout: Math.max(1000, 4 * this.timeoutMs),
      retryStrategy: (times) => Math.min(50 * 2 ** times, 1000),
    }) as HitClient;
    this.client.defineCommand('rateLimitHit', { lua: HIT_SCRIPT });
    this.client.defineCommand('rateLimitRefund', { lua: REFUND_SCRIPT });
    // Without a listener ioredis prints every reconnect failure to stderr.
    this.client.on('error', (err: Error) => this.markDown(err));
  }

  /** Resolves true once connected; false on the first connection error or after `ms`. */
  ready(ms: number): Promise<boolean> {
    if (this.client.status === 'ready') return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (ok: boolean) => {
        clearTimeout(timer);
        this.client.off('ready', onReady).off('error', onError);
        resolve(ok);
      };
      const onReady = () => done(true);
      const onError = () => done(false);
      const timer = setTimeout(() => done(false), ms);
      this.client.once('ready', onReady).once('error', onError);
    });
  }

  async hit(key: string, windows: readonly Window[]): Promise<Verdict> {
    validateWindows(windows);
    // During an outage only one hit at a time probes Redis, and only once the
    // client has reconnected; the rest go straight to the fallback, so a
    // hung server costs at most one slow request per timeout.
    if (this.down && (this.probing || this.client.status !== 'ready')) {
      return this.fallbackHit(key, windows);
    }
    const probe = this.down;
    this.probing ||= probe;
    try {
      const verdict = await this.hitRedis(key, windows);
      // Only a hit sent during the outage proves recovery; one sent before it
      // may just have been slow, and would make the logs flap.
      if (probe) this.markUp();
      return verdict;
    } catch (err) {
      this.markDown(err);
      return this.fallbackHit(key, windows);
    } finally {
      if (probe) this.probing = false;
    }
  }

  private async fallbackHit(key: string, windows: readonly Window[]): Promise<Verdict> {
    const verdict = await this.opts.fallback.hit(key, windows);
    return verdict.ticket === undefined ? verdict : { ...verdict, ticket: FALLBACK_TICKET + verdict.ticket };
  }

  /**
   * A hit the fallback answered is refunded there; one Redis answered, in
   * Redis by REFUND_SCRIPT, and if Redis does not answer now the hit stays
   * counted (errs strict, like a timed-out hit).
   */
  async refund(key: string, windows: readonly Window[], ticket: string): Promise<void> {
    if (ticket.startsWith(FALLBACK_TICKET)) return this.opts.fallback.refund(key, windows, ticket.slice(FALLBACK_TICKET.length));
    if (this.client.status !== 'ready') return;
    try {
      await withTimeout(this.client.rateLimitRefund(String(windows.length), ...this.keys(key, windows), ticket), this.timeoutMs);
    } catch (err) {
      this.markDown(err);
    }
  }

  private keys(key: string, windows: readonly Window[]): string[] {
    // The hash tag keeps all windows of a key in one Redis Cluster slot, as a
    // multi-key script requires.
    return windows.map((w) => `${this.prefix}{${key}}:${w.name}`);
  }

  private async hitRedis(key: string, windows: readonly Window[]): Promise<Verdict> {
    const keys = this.keys(key, windows);
    const member = this.member + ++this.seq;
    const args = [this.opts.now ? String(this.opts.now()) : '', member];
    for (const w of windows) args.push(String(w.limit), String(w.windowMs));
    // commandTimeout covers each command; this also covers the EVAL resent
    // after a NOSCRIPT reply (e.g. right after a Redis restart).
    const reply = await withTimeout(this.client.rateLimitHit(String(keys.length), ...keys, ...args), this.timeoutMs);
    if (!Array.isArray(reply) || reply.length !== 1 + 2 * windows.length) {
      throw new Error('unexpected reply from rate limit script');
    }
    const states: WindowState[] = windows.map((_, i) => ({
      count: Number(reply[1 + 2 * i]),
      resetAt: Number(reply[2 + 2 * i]),
    }));
    return decide(windows, reply[0] === 1, states, reply[0] === 1 ? member : undefined);
  }

  private markDown(err: unknown): void {
    if (this.closing || this.down) return;
    this.down = true;
    const message = err instanceof Error ? err.message : String(err);
    this.opts.logger?.warn({ err: message }, 'rate limit: Redis unavailable; each instance enforces limits on its own until it is back');
  }

  private markUp(): void {
    if (!this.down) return;
    this.down = false;
    this.opts.logger?.info({}, 'rate limit: Redis is back; limits are shared again');
  }

  /** Quits the client (or drops it if Redis does not answer) and closes the fallback. */
  async close(): Promise<void> {
    this.closing = true;
    try {
      if (this.client.status === 'ready') await withTimeout(this.client.quit(), this.timeoutMs);
    } catch {
      // Redis is gone or slow; disconnect() below does not wait for it.
    } finally {
      this.client.disconnect();
    }
    await this.opts.fallback.close();
  }
}
