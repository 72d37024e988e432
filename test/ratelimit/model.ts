import fc from 'fast-check';
import type { RateLimiter, Verdict, Window } from '../../src/ratelimit/types.js';

/**
 * Naive reference: keeps every admitted timestamp per key and rescans them.
 * Written independently of src/ratelimit/verdict.ts so the property checks
 * the window-choice rules rather than restating them.
 */
class ReferenceLimiter {
  private readonly admitted = new Map<string, number[]>();

  hit(key: string, windows: readonly Window[], now: number): Verdict {
    const ts = this.admitted.get(key) ?? [];
    const inside = (w: Window) => ts.filter((t) => t > now - w.windowMs);
    const allowed = windows.every((w) => inside(w).length < w.limit);
    if (allowed) this.admitted.set(key, [...ts, now]);
    const all = this.admitted.get(key) ?? [];
    const rows = windows.map((w, index) => {
      const inWin = all.filter((t) => t > now - w.windowMs);
      const n = inWin.length;
      const departing = allowed ? inWin[0] : inWin[n - w.limit];
      return { index, w, n, resetAt: (departing ?? now) + w.windowMs };
    });
    if (allowed) {
      const [best] = rows.sort((a, b) => a.w.limit - a.n - (b.w.limit - b.n) || b.resetAt - a.resetAt || a.index - b.index);
      return { allowed, limit: best!.w.limit, remaining: best!.w.limit - best!.n, resetAt: best!.resetAt };
    }
    const [best] = rows.filter((r) => r.n >= r.w.limit).sort((a, b) => b.resetAt - a.resetAt || a.index - b.index);
    return { allowed, limit: best!.w.limit, remaining: 0, resetAt: best!.resetAt };
  }
}

/** Throws unless no interval (t - W, t] of any window holds more than its limit. */
function assertSlidingWindows(admitted: readonly number[], windows: readonly Window[]): void {
  for (const w of windows) {
    for (const t of admitted) {
      const n = admitted.filter((s) => s > t - w.windowMs && s <= t).length;
      if (n > w.limit) {
        throw new Error(`${n} admitted in (${t - w.windowMs}, ${t}] for ${w.name} (limit ${w.limit})`);
      }
    }
  }
}

/**
 * Window lengths and clock steps are whole multiples of `unitMs`, so hits
 * often land exactly on a window boundary, where off-by-one bugs live.
 */
export interface Scale {
  unitMs: number;
  minWindowUnits: number;
  maxWindowUnits: number;
  maxAdvanceUnits: number;
}

function scenarioArb(scale: Scale) {
  const limit = fc.oneof({ arbitrary: fc.constant(0), weight: 1 }, { arbitrary: fc.integer({ min: 1, max: 5 }), weight: 9 });
  const windowMs = fc.integer({ min: scale.minWindowUnits, max: scale.maxWindowUnits }).map((n) => n * scale.unitMs);
  const advance = fc.integer({ min: 0, max: scale.maxAdvanceUnits }).map((n) => n * scale.unitMs);
  return fc.record({
    windows: fc
      .array(fc.record({ limit, windowMs }), { minLength: 2, maxLength: 3 })
      .map((ws) => ws.map((w, i): Window => ({ name: `w${i}`, ...w }))),
    hits: fc.array(fc.record({ advance, key: fc.constantFrom('a', 'b', 'c') }), { minLength: 1, maxLength: 60 }),
  });
}

/**
 * The sliding-window property against one long-lived limiter whose clock is
 * `clock.t`. Every run uses fresh keys and moves the clock forward, so runs
 * (and shrinks) cannot see each other's state.
 */
export async function checkSlidingWindowProperty(limiter: RateLimiter, clock: { t: number }, scale: Scale, numRuns: number): Promise<void> {
  let run = 0;
  await fc.assert(
    fc.asyncProperty(scenarioArb(scale), async ({ windows, hits }) => {
      run++;
      clock.t += 10 * scale.maxWindowUnits * scale.unitMs;
      const model = new ReferenceLimiter();
      const admitted = new Map<string, number[]>();
      for (const h of hits) {
        clock.t += h.advance;
        const key = `run${run}-${h.key}`;
        const verdict = await limiter.hit(key, windows);
        const expected = model.hit(key, windows, clock.t);
        const { allowed, limit, remaining, resetAt } = verdict;
        if (JSON.stringify({ allowed, limit, remaining, resetAt }) !== JSON.stringify(expected)) {
          throw new Error(`at ${clock.t} on ${key}: got ${JSON.stringify(verdict)}, expected ${JSON.stringify(expected)}`);
        }
        if (verdict.allowed) admitted.set(key, [...(admitted.get(key) ?? []), clock.t]);
      }
      for (const ts of admitted.values()) assertSlidingWindows(ts, windows);
    }),
    { numRuns },
  );
}
