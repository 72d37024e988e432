/**
 * `leadline purge --company ID --before DATE`, for retention policies: the
 * company's call log (attempts) and events older than DATE are removed.
 * Attempts that the company's per-number call caps still count (placed within
 * the longest cap's window) are kept, with their numbers replaced by digests
 * (src/store/digests.ts): removing them would let a number be called again
 * sooner than the caps allow. Calls still in progress are left alone.
 */
import { zonedInstant } from '../leads/formats.js';
import type { Store } from '../store/index.js';
import { parseCallCaps } from './call-caps.js';

export interface PurgeSummary {
  companyId: string;
  /** ISO 8601 UTC */
  before: string;
  attemptsDeleted: number;
  /** kept for the call caps, their numbers removed */
  attemptsAnonymised: number;
  /** calls in progress, left as they are */
  attemptsInProgress: number;
  eventsDeleted: number;
}

/** rows per transaction: short enough not to hold SQLite's one writer, or a PostgreSQL table's rows, for long */
const CHUNK = 5000;

export async function purgeCompany(store: Store, companyId: string, before: number, now: number): Promise<PurgeSummary> {
  const caps = parseCallCaps(await store.companies.callCaps(companyId));
  const countedSince = caps.length === 0 ? null : now - Math.max(...caps.map((c) => c.windowMs));
  const summary: PurgeSummary = {
    companyId,
    before: new Date(before).toISOString(),
    attemptsDeleted: 0,
    attemptsAnonymised: 0,
    attemptsInProgress: 0,
    eventsDeleted: 0,
  };
  for (;;) {
    const chunk = await store.transaction((tx) => tx.attempts.purge({ companyId, before, countedSince, limit: CHUNK }));
    summary.attemptsDeleted += chunk.deleted;
    summary.attemptsAnonymised += chunk.anonymised;
    if (chunk.deleted === 0 && chunk.anonymised === 0) break;
  }
  for (;;) {
    const n = await store.transaction((tx) => tx.events.prune(before, CHUNK, companyId));
    summary.eventsDeleted += n;
    if (n === 0) break;
  }
  summary.attemptsInProgress = await store.attempts.openBefore(companyId, before);
  return summary;
}

/**
 * --before: a date (YYYY-MM-DD, midnight UTC) or an ISO 8601 time with its
 * zone, in the past. Throws a readable Error otherwise.
 */
export function parseBefore(raw: string, now: number): number {
  const text = raw.trim();
  const date = /^\d{4}-\d{2}-\d{2}$/.test(text);
  // the API's own parser of zoned timestamps (src/leads/formats.ts): Date.parse rolled
  // 2026-04-31T00:00:00Z over to May 1st, a day further than typed
  const at = zonedInstant(date ? `${text}T00:00:00Z` : text);
  if (!Number.isFinite(at))
    throw new Error(`--before must be a date (2026-01-31) or an ISO 8601 time with its zone (2026-01-31T12:00:00Z), got "${raw}"`);
  if (at > now) throw new Error(`--before ${new Date(at).toISOString()} is in the future: purge removes what is older than a past date`);
  return at;
}
