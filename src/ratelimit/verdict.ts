import type { Verdict, Window } from './types.js';

/**
 * What a backend knows about one window after deciding a hit. Both backends
 * feed this to `decide`, so the rule for which window the headers describe
 * lives in one place and the two limiters cannot drift apart.
 */
export interface WindowState {
  /** requests counted in the window, including this one if it was admitted */
  readonly count: number;
  /**
   * Admitted: oldest counted entry + windowMs. Refused and full: the time at
   * which enough entries have left for one more to fit. Otherwise unused.
   */
  readonly resetAt: number;
}

/**
 * Rejects input that would make the limiter silently wrong: duplicate names
 * would share one bucket and count a hit twice; a non-integer or non-positive
 * length has no sensible expiry. Names may not contain ':', '{' or '}' so that
 * bucket keys (`key:name`, and `{key}:name` in Redis) never collide, whatever
 * the (possibly client-controlled) key contains.
 */
export function validateWindows(windows: readonly Window[]): void {
  // The same few arrays come in on every request (src/http/limits.ts builds
  // them once); one check each is enough. A refused array is never remembered.
  if (validated.has(windows)) return;
  if (windows.length === 0) throw new RangeError('rate limit: at least one window is required');
  const names = new Set<string>();
  for (const w of windows) {
    if (!Number.isSafeInteger(w.limit) || w.limit < 0) {
      throw new RangeError(`rate limit: window ${w.name}: limit must be an integer >= 0`);
    }
    if (!Number.isSafeInteger(w.windowMs) || w.windowMs <= 0) {
      throw new RangeError(`rate limit: window ${w.name}: windowMs must be an integer > 0`);
    }
    if (/[:{}]/.test(w.name)) throw new RangeError(`rate limit: window name ${w.name} contains ':', '{' or '}'`);
    if (names.has(w.name)) throw new RangeError(`rate limit: duplicate window name ${w.name}`);
    names.add(w.name);
  }
  validated.add(windows);
}
const validated = new WeakSet<readonly Window[]>();

export function decide(windows: readonly Window[], allowed: boolean, states: readonly WindowState[], ticket?: string): Verdict {
  let best: Verdict | undefined;
  windows.forEach((w, i) => {
    const s = states[i];
    if (!s) throw new Error('rate limit: missing window state');
    if (allowed) {
      // The tightest window; on a tie the later reset, since the next request
      // is only sure to pass once every exhausted window has room again.
      const v: Verdict = { allowed, limit: w.limit, remaining: w.limit - s.count, resetAt: s.resetAt, ticket };
      if (!best || v.remaining < best.remaining || (v.remaining === best.remaining && v.resetAt > best.resetAt)) {
        best = v;
      }
    } else if (s.count >= w.limit) {
      // A retry succeeds only when every full window has room: the latest one.
      const v: Verdict = { allowed, limit: w.limit, remaining: 0, resetAt: s.resetAt };
      if (!best || v.resetAt > best.resetAt) best = v;
    }
  });
  if (!best) throw new Error('rate limit: refused without a full window');
  return best;
}
