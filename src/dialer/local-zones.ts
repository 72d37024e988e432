/**
 * The called person's zones, stored on the lead so that the claim itself
 * can leave out leads outside their local window (store/queue.ts).
 *
 * A lead's zones (zonesForLead: metadata.timezone, else the number's
 * prefix; several for a number whose country keeps several clocks) are a
 * *zone set*, stored once in `zone_sets` (id, zones: the IANA names joined
 * by one space; '' when nothing is known and the campaign's own zone is
 * used). `leads.local_zones` holds its id; NULL means "not worked out yet".
 *
 * Before each claim the dialer works out the zones of the campaign's leads
 * still at NULL (fillCampaignZones: the lead insert path knows nothing of the
 * dialer, as with every other dialer column), then computes in JS which
 * zone sets are inside the campaign's local window right now (every zone of
 * the set open, on its own wall clock, so daylight saving time is Intl's
 * business, not a stored offset's) and passes their ids to the claim. A lead
 * whose set is not among them is not claimed, so it keeps its status, its
 * due time and its attempts: nothing about it changes until it is called.
 *
 * Zone sets are never changed or deleted, so an id means the same zones
 * forever and a worker may cache them. A change to the prefix table
 * (phone-timezone-data.ts) applies to leads whose zones are worked out after
 * it; to apply it to stored leads too, a migration sets local_zones back to
 * NULL and the dialer works them out again.
 */
import { parseMetadata } from '../leads/metadata.js';
import { type ClosedDates, isClosedAt } from '../scheduling/closed-dates.js';
import { isOpen, type WeeklyHours } from '../scheduling/hours.js';
import type { Store } from '../store/index.js';
import type { ZoneStore } from '../store/zones.js';
import { zonesForLead } from './phone-timezone.js';

/** the zone set text of a lead: its zones joined by one space, '' when none is known */
const zoneSetKey = (lead: { phoneNumber: string | null; metadata: string }): string =>
  zoneSetKeyOf(zonesForLead({ phoneNumber: lead.phoneNumber, metadata: parseMetadata(lead.metadata) }));

export const zoneSetKeyOf = (zones: readonly string[]): string => zones.join(' ');
const zonesOfKey = (key: string): string[] => (key === '' ? [] : key.split(' '));

const FILL_BATCH = 2000;

/**
 * Works out the zones of every lead of the campaign still at NULL, in
 * batches. Safe to run from several workers at once: each lead gets the same
 * value whoever fills it, only while it is still NULL, and on PostgreSQL
 * workers filling at once skip each other's locked leads.
 */
export async function fillCampaignZones(store: Store, campaignId: string): Promise<void> {
  for (;;) {
    const { filled, ids } = await store.transaction(async (tx) => {
      const rows = await tx.queue.withoutZones({ campaignId, limit: FILL_BATCH, skipLocked: true });
      const keys = rows.map((r) => zoneSetKey({ phoneNumber: r.phone_number, metadata: r.metadata }));
      const ids = await tx.zones.ids(keys);
      await tx.queue.setZones(rows.map((r, i) => ({ seq: r.seq, zoneSet: ids.get(keys[i]!)! })));
      return { filled: rows.length, ids };
    });
    // committed: the claim that follows may take these leads
    remember(store.zones, ids);
    if (filled < FILL_BATCH) return;
  }
}

/** The zone set of a number the predial function returned, as an id; the worker stores it on the lead. */
export async function zoneSetIdFor(store: Store, key: string): Promise<number> {
  const ids = await store.zones.ids([key]);
  remember(store.zones, ids);
  return ids.get(key)!;
}

/** zone sets already read, per store: id -> zones. Ids never change meaning. */
interface ZoneSetCache {
  byId: Map<number, string[]>;
  readAt: number;
  /** per window + zone + minute: the ids open then */
  open: Map<string, { minute: number; ids: number[] }>;
}
const caches = new WeakMap<ZoneStore, ZoneSetCache>();
/** Zone sets another worker added are read again after this long (their leads wait at most that). */
const REREAD_MS = 1000;

function cacheOf(zones: ZoneStore): ZoneSetCache {
  let c = caches.get(zones);
  if (!c) caches.set(zones, (c = { byId: new Map(), readAt: -Infinity, open: new Map() }));
  return c;
}

function remember(zones: ZoneStore, ids: Map<string, number>): void {
  const c = cacheOf(zones);
  let added = false;
  for (const [key, id] of ids) {
    if (!c.byId.has(id)) {
      c.byId.set(id, zonesOfKey(key));
      added = true;
    }
  }
  if (added) c.open.clear();
}

/** The zones of a stored zone set id (undefined if it is not known here yet). */
export async function zonesOfSet(store: Store, id: number): Promise<string[] | undefined> {
  const c = cacheOf(store.zones);
  if (!c.byId.has(id)) await reread(store.zones, c);
  return c.byId.get(id);
}

async function reread(zones: ZoneStore, c: ZoneSetCache): Promise<void> {
  remember(zones, new Map((await zones.all()).map((r) => [r.zones, r.id])));
  c.readAt = performance.now();
}

/** A zone this runtime cannot read (stored by another ICU version) is never open: no guessing. */
function safeIsOpen(window: WeeklyHours, closed: ClosedDates | null, zone: string, at: Date): boolean {
  try {
    return isOpen(window, zone, at) && !(closed && isClosedAt(closed, zone, at));
  } catch {
    return false;
  }
}

/** True when the window is open around the clock: no lead is ever outside it. */
export const alwaysOpen = (window: WeeklyHours): boolean =>
  window.intervals.length === 1 && window.intervals[0]![0] === 0 && window.intervals[0]![1] === 7 * 1440;

/**
 * The ids of the zone sets inside `window` at `now`: every zone of the set
 * open on its own clock, and its local date not one of the closed dates, the
 * campaign's zone for the empty set. The same rule as explainDue's "local
 * time" and "closed date" (due.ts), from the same zones.
 */
export async function openZoneSets(
  store: Store,
  window: WeeklyHours,
  windowKey: string,
  campaignTimezone: string,
  now: number,
  closed: ClosedDates | null = null,
): Promise<number[]> {
  const c = cacheOf(store.zones);
  if (performance.now() - c.readAt >= REREAD_MS) await reread(store.zones, c);
  // Windows are whole minutes of wall-clock time and zone offsets whole
  // minutes, so the answer holds for the whole UTC minute.
  const minute = Math.floor(now / 60_000);
  const key = `${windowKey}|${closed?.spec ?? ''}|${campaignTimezone}`;
  const hit = c.open.get(key);
  if (hit && hit.minute === minute) return hit.ids;
  const at = new Date(minute * 60_000);
  const openZone = new Map<string, boolean>();
  const isZoneOpen = (z: string) => {
    let o = openZone.get(z);
    if (o === undefined) openZone.set(z, (o = safeIsOpen(window, closed, z, at)));
    return o;
  };
  const ids: number[] = [];
  for (const [id, zones] of c.byId) {
    if ((zones.length === 0 ? [campaignTimezone] : zones).every(isZoneOpen)) ids.push(id);
  }
  ids.sort((a, b) => a - b);
  c.open.set(key, { minute, ids });
  return ids;
}
