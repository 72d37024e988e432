/**
 * One sliding window: at most `limit` requests are admitted in any half-open
 * interval (t - windowMs, t]. `name` tells windows of one key apart.
 */
export interface Window {
  readonly name: string;
  readonly limit: number;
  readonly windowMs: number;
}

/** The answer for one request, described by the window closest to exhaustion. */
export interface Verdict {
  readonly allowed: boolean;
  /** limit of the window the headers describe */
  readonly limit: number;
  /** requests still admitted in that window after this one */
  readonly remaining: number;
  /**
   * Epoch ms when that window next admits a request (when its oldest counted
   * request leaves it). When refused: the time after which a retry succeeds.
   */
  readonly resetAt: number;
}

export interface RateLimiter {
  /**
   * Atomically: admit the request only if every window has room, and when
   * admitted count it in every window. A refused request is not counted.
   */
  hit(key: string, windows: readonly Window[]): Promise<Verdict>;
  close(): Promise<void>;
}
