/**
 * Per-number call caps, a company setting: at most N calls placed to one
 * phone number across all the company's campaigns in each rolling window,
 * e.g. "3/24h,7/7d" ("none" turns them off; stored as ''). Counted right
 * before each call, when its attempt is written (store/shared/queue.ts open):
 * a number at a cap is not called, and its lead is due again when the
 * oldest call in the window leaves it.
 */
import { formatDuration, parseDuration } from '../scheduling/duration.js';
import type { Store } from '../store/index.js';

export interface CallCap {
  max: number;
  windowMs: number;
}

const MAX_WINDOW_MS = 366 * 86_400_000;

/** "3/24h,7/7d" → caps; "none" or '' → none. Throws a readable Error on anything else. */
export function parseCallCaps(text: string): CallCap[] {
  const trimmed = text.trim();
  if (trimmed === '' || trimmed === 'none') return [];
  return trimmed.split(',').map((part) => {
    const m = /^(\d+)\/(\S+)$/.exec(part.trim());
    const hint = 'expected CALLS/WINDOW, comma-separated, e.g. 3/24h,7/7d (or none)';
    if (!m) throw new Error(`invalid call cap "${part.trim()}": ${hint}`);
    const max = Number(m[1]);
    if (!Number.isSafeInteger(max) || max < 1) throw new Error(`invalid call cap "${part.trim()}": at least 1 call`);
    let windowMs: number;
    try {
      windowMs = parseDuration(m[2]!);
    } catch (err) {
      throw new Error(`invalid call cap "${part.trim()}": ${(err as Error).message}`);
    }
    if (windowMs < 60_000 || windowMs > MAX_WINDOW_MS) throw new Error(`invalid call cap "${part.trim()}": the window is 1m to 366d`);
    return { max, windowMs };
  });
}

export const formatCallCaps = (caps: readonly CallCap[]): string =>
  caps.length === 0 ? 'none' : caps.map((c) => `${c.max}/${formatDuration(c.windowMs)}`).join(',');

/**
 * The cap a number is at, given the instants (ms) calls to it were placed,
 * and when it is next allowed: when enough of those calls have left every
 * window it is at. null when a call is allowed now.
 */
export function capReached(caps: readonly CallCap[], placedAt: readonly number[], now: number): { cap: string; until: number } | null {
  let worst: { cap: string; until: number } | null = null;
  const newestFirst = [...placedAt].sort((a, b) => b - a);
  for (const c of caps) {
    const inWindow = newestFirst.filter((t) => t > now - c.windowMs);
    if (inWindow.length < c.max) continue;
    // the call that must leave the window for one more to fit: the max-th newest
    const until = inWindow[c.max - 1]! + c.windowMs;
    if (!worst || until > worst.until) worst = { cap: formatCallCaps([c]), until };
  }
  return worst;
}

/** the company's caps against the calls placed to the number: what explain and the dialer ask */
export async function callCapFor(store: Store, companyId: string, phoneNumber: string, now: number) {
  const caps = parseCallCaps(await store.companies.callCaps(companyId));
  if (caps.length === 0) return null;
  const longest = Math.max(...caps.map((c) => c.windowMs));
  return capReached(caps, await store.attempts.placedTo(companyId, phoneNumber, now - longest), now);
}
