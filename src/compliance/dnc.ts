/**
 * The do-not-call list, per company: what the API, the CLI and the dashboard
 * share. Numbers are E.164 (checked by the routes' schemas, and here for the
 * CLI); an entry keeps the date, source and reason of its first listing.
 * Keys restricted to one campaign cannot read or change the list: it is the
 * whole company's.
 */
import type { Principal } from '../auth/principal.js';
import { perStore, ScopedCursors } from '../crypto/cursor-cipher.js';
import { AppError, validation } from '../errors.js';
import { DEFAULT_PAGE, MAX_PAGE } from '../leads/schemas.js';
import type { DncEntry, DncSource } from '../store/dnc.js';
import type { Store } from '../store/index.js';

export const MAX_DNC_BATCH = 1000;
/** the longest reason kept with a listing (the API's schema and the dashboard's form) */
export const MAX_DNC_REASON = 500;
export const E164 = /^\+[1-9][0-9]{1,14}$/;
const CAMPAIGN_KEY_REFUSED = "A campaign's key cannot use the company's do-not-call list; use a company-wide key";

type Access = Pick<Principal, 'companyId' | 'campaignId'>;

/** an entry as the API and the CLI show it */
export const shownEntry = (e: DncEntry) => ({
  phoneNumber: e.phoneNumber,
  addedAt: new Date(e.addedAt).toISOString(),
  source: e.source,
  ...(e.reason === null ? {} : { reason: e.reason }),
});

function companyOf(p: Access): string {
  if (p.campaignId !== null) throw new AppError('forbidden', CAMPAIGN_KEY_REFUSED);
  return p.companyId;
}

/** the first number that is not E.164, as a 400 naming its place */
function checkNumbers(numbers: readonly string[]): void {
  const bad = numbers.findIndex((n) => !E164.test(n));
  if (bad >= 0)
    throw validation(
      `phoneNumbers[${bad}]: phoneNumber must be in E.164 format: a plus sign and 2 to 15 digits, the first not 0 (e.g. +14155550123)`,
    );
}

/** Lists the numbers; those already listed keep their entry. In one transaction, with its dnc.added event. */
export async function addToDnc(
  store: Store,
  p: Access,
  numbers: readonly string[],
  o: { source: DncSource; reason?: string | null; now: number },
): Promise<{ added: number; alreadyListed: number }> {
  const companyId = companyOf(p);
  checkNumbers(numbers);
  const unique = new Set(numbers).size;
  const added = await store.transaction((tx) => tx.dnc.add(companyId, numbers, { source: o.source, reason: o.reason ?? null, now: o.now }));
  return { added: added.length, alreadyListed: unique - added.length };
}

export async function removeFromDnc(store: Store, p: Access, numbers: readonly string[]): Promise<{ removed: number; notListed: number }> {
  const companyId = companyOf(p);
  checkNumbers(numbers);
  const removed = await store.dnc.remove(companyId, numbers);
  return { removed: removed.length, notListed: new Set(numbers).size - removed.length };
}

export async function lookUpDnc(store: Store, p: Access, phoneNumber: string) {
  const entry = await store.dnc.get(companyOf(p), phoneNumber);
  if (!entry) return { listed: false };
  const { phoneNumber: _, ...rest } = shownEntry(entry);
  return { listed: true, ...rest };
}

/**
 * The page cursor: the last number returned, as one encrypted block bound to
 * the company (ScopedCursors; an E.164 number's digits, at most 15, fit 64
 * bits, and its first digit is never 0). It was the number in base64url: a
 * phone number in every next-page URL, and so in the request log, which
 * keeps numbers out (docs/operations.md); and any number could be written in.
 */
const codecs = new WeakMap<Store, Promise<ScopedCursors>>();
const dncCursors = (store: Store) => perStore(codecs, store, (key) => new ScopedCursors(key, 'dnc cursor', 'company'));

async function decodeCursor(store: Store, companyId: string, cursor: string): Promise<string> {
  const digits = (await dncCursors(store)).decode(companyId, cursor);
  const phone = `+${digits}`;
  if (digits === null || !E164.test(phone)) throw validation('Invalid cursor');
  return phone;
}

/** one page of the list, in number order; the cursor is the last number returned */
export async function pageDnc(store: Store, p: Access, q: { limit?: string; cursor?: string }) {
  // the query first (400), then the key's reach (403): docs/api.md "Order of checks", as addToDnc does
  const limit = q.limit === undefined ? DEFAULT_PAGE : Math.min(Number(q.limit), MAX_PAGE);
  // the key's own company, so that a campaign key's bad cursor is the 400 before its 403
  const after = q.cursor === undefined ? null : await decodeCursor(store, p.companyId, q.cursor);
  const companyId = companyOf(p);
  const rows = await store.dnc.page(companyId, after, limit + 1);
  const entries = rows.slice(0, limit);
  const last = entries.at(-1)?.phoneNumber ?? after;
  return {
    entries: entries.map(shownEntry),
    count: entries.length,
    ...(last === null ? {} : { cursor: (await dncCursors(store)).encode(companyId, Number(last.slice(1))) }),
    hasMore: rows.length > limit,
  };
}
