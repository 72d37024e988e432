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
  /** names this admitted hit for `refund`; absent when refused */
  readonly ticket?: string;
}

export interface RateLimiter {
  /**
   * Atomically: admit the request only if every window has room, and when
   * admitted count it in every window. A refused request is not counted.
   */
  hit(key: string, windows: readonly Window[]): Promise<Verdict>;
  /**
   * Takes back one admitted hit (by its verdict's ticket) from every window,
   * as if it had never been counted: for requests refused before any work,
   * such as a body over the size limit. Best effort: a hit that has already
   * left its windows, or a backend that does not answer, leaves the count as
   * it is (the strict side).
   */
  refund(key: string, windows: readonly Window[], ticket: string): Promise<void>;
  close(): Promise<void>;
}
