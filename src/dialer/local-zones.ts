/**
 * The called person's zones, stored on the lead so that the claim itself
 * can leave out leads outside their local window (claim-repository.ts).
 *
 * A lead's zones (zonesForLead: metadata.timezone, else the number's
 * prefix; several for a number whose country keeps several clocks) are a
 * *zone set*, stored once in `zone_sets` (id, zones: the IANA names joined
 * by one space; '' when nothing is known and the campaign's own zone is
 * used). `leads.local_zones` holds its id; NULL means "not worked out yet".
 *
 * Before each claim the dialer works out the zones of the campaign's leads
 * still at NULL (fillLeadZones: the lead insert path knows nothing of the
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
import { type Kysely, sql } from 'kysely';
import type { Db, Dialect } from '../db/index.js';
import { isOpen, type WeeklyHours } from './hours.js';
import { zonesForLead } from './phone-timezone.js';

/** the zone set text of a lead: its zones joined by one space, '' when none is known */
export function zoneSetKey(lead: { phoneNumber: string | null; metadata: string }): string {
  let metadata: unknown = {};
  try {
    metadata = JSON.parse(lead.metadata);
  } catch {
    // unreadable metadata carries no timezone
  }
  return zoneSetKeyOf(zonesForLead({ phoneNumber: lead.phoneNumber, metadata }));
}

export const zoneSetKeyOf = (zones: readonly string[]): string => zones.join(' ');
export const zonesOfKey = (key: string): string[] => (key === '' ? [] : key.split(' '));

/** Ids of the given zone sets, inserting the ones not stored yet. */
export async function zoneSetIds(ex: Kysely<any>, dialect: Dialect, keys: readonly string[]): Promise<Map<string, number>> {
  const unique = [...new Set(keys)];
  const ids = new Map<string, number>();
  if (unique.length === 0) return ids;
  const json = JSON.stringify(unique);
  if (dialect === 'postgres') {
    await sql`insert into zone_sets (zones) select value from json_array_elements_text(${json}::json) on conflict (zones) do nothing`.execute(ex);
    const { rows } = await sql<{ id: number; zones: string }>`select id, zones from zone_sets
      where zones in (select value from json_array_elements_text(${json}::json))`.execute(ex);
    for (const r of rows) ids.set(r.zones, Number(r.id));
  } else {
    await sql`insert or ignore into zone_sets (zones) select value from json_each(${json})`.execute(ex);
    const { rows } = await sql<{ id: number; zones: string }>`select id, zones from zone_sets
      where zones in (select value from json_each(${json}))`.execute(ex);
    for (const r of rows) ids.set(r.zones, Number(r.id));
  }
  return ids;
}

/**
 * Works out the zones of up to `limit` leads whose local_zones is NULL (of
 * one campaign, or of all); returns how many it filled. `skipLocked`
 * (PostgreSQL, inside a transaction) lets workers filling at once take
 * different leads. Safe to run concurrently: each lead gets the same value
 * whoever fills it, and only while it is still NULL.
 */
export async function fillLeadZones(
  ex: Kysely<any>,
  dialect: Dialect,
  o: { campaignId?: string; limit: number; skipLocked?: boolean },
): Promise<{ filled: number; ids: Map<string, number> }> {
  const campaign = o.campaignId === undefined ? sql`` : sql`and campaign_id = ${o.campaignId}`;
  const lock = dialect === 'postgres' && o.skipLocked ? sql`for update skip locked` : sql``;
  const { rows } = await sql<{ seq: number; phone_number: string | null; metadata: string }>`
    select seq, phone_number, metadata from leads where local_zones is null ${campaign} limit ${o.limit} ${lock}`.execute(ex);
  if (rows.length === 0) return { filled: 0, ids: new Map() };
  const keys = rows.map((r) => zoneSetKey({ phoneNumber: r.phone_number, metadata: r.metadata }));
  const ids = await zoneSetIds(ex, dialect, keys);
  const pairs = JSON.stringify(rows.map((r, i) => ({ s: Number(r.seq), z: ids.get(keys[i]!)! })));
  if (dialect === 'postgres') {
    await sql`update leads set local_zones = v.z from json_to_recordset(${pairs}::json) as v(s bigint, z int)
      where leads.seq = v.s and leads.local_zones is null`.execute(ex);
  } else {
    await sql`update leads set local_zones = v.z
      from (select json_extract(value, '$.s') as s, json_extract(value, '$.z') as z from json_each(${pairs})) v
      where leads.seq = v.s and leads.local_zones is null`.execute(ex);
  }
  return { filled: rows.length, ids };
}

const FILL_BATCH = 2000;

/** Fills every lead of the campaign still at NULL (see fillLeadZones), in batches. */
export async function fillCampaignZones(db: Db, campaignId: string): Promise<void> {
  for (;;) {
    const { filled, ids } = await db.writeTx((tx) => fillLeadZones(tx as Kysely<any>, db.dialect, { campaignId, limit: FILL_BATCH, skipLocked: true }));
    // committed: the claim that follows may take these leads
    remember(db, ids);
    if (filled < FILL_BATCH) return;
  }
}

/** The zone set of a number the predial function returned, as an id; the worker stores it on the lead. */
export async function zoneSetIdFor(db: Db, key: string): Promise<number> {
  const ids = await zoneSetIds(db.kysely as Kysely<any>, db.dialect, [key]);
  remember(db, ids);
  return ids.get(key)!;
}

/** zone sets already read, per database: id -> zones. Ids never change meaning. */
interface ZoneSetCache {
  byId: Map<number, string[]>;
  readAt: number;
  /** per window + zone + minute: the ids open then */
  open: Map<string, { minute: number; ids: number[] }>;
}
const caches = new WeakMap<object, ZoneSetCache>();
/** Zone sets another worker added are read again after this long (their leads wait at most that). */
const REREAD_MS = 1000;

function cacheOf(db: Db): ZoneSetCache {
  let c = caches.get(db.kysely);
  if (!c) caches.set(db.kysely, (c = { byId: new Map(), readAt: -Infinity, open: new Map() }));
  return c;
}

function remember(db: Db, ids: Map<string, number>): void {
  const c = cacheOf(db);
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
export async function zonesOfSet(db: Db, id: number): Promise<string[] | undefined> {
  const c = cacheOf(db);
  if (!c.byId.has(id)) await reread(db, c);
  return c.byId.get(id);
}

async function reread(db: Db, c: ZoneSetCache): Promise<void> {
  const { rows } = await sql<{ id: number; zones: string }>`select id, zones from zone_sets`.execute(db.kysely);
  remember(db, new Map(rows.map((r) => [r.zones, Number(r.id)])));
  c.readAt = performance.now();
}

/** A zone this runtime cannot read (stored by another ICU version) is never open: no guessing. */
function safeIsOpen(window: WeeklyHours, zone: string, at: Date): boolean {
  try {
    return isOpen(window, zone, at);
  } catch {
    return false;
  }
}

/** True when the window is open around the clock: no lead is ever outside it. */
export const alwaysOpen = (window: WeeklyHours): boolean =>
  window.intervals.length === 1 && window.intervals[0]![0] === 0 && window.intervals[0]![1] === 7 * 1440;

/**
 * The ids of the zone sets inside `window` at `now`: every zone of the set
 * open on its own clock, the campaign's zone for the empty set. The same rule
 * as explainDue's "local time" (due.ts), from the same zones.
 */
export async function openZoneSets(db: Db, window: WeeklyHours, windowKey: string, campaignTimezone: string, now: number): Promise<number[]> {
  const c = cacheOf(db);
  if (performance.now() - c.readAt >= REREAD_MS) await reread(db, c);
  // Windows are whole minutes of wall-clock time and zone offsets whole
  // minutes, so the answer holds for the whole UTC minute.
  const minute = Math.floor(now / 60_000);
  const key = `${windowKey}|${campaignTimezone}`;
  const hit = c.open.get(key);
  if (hit && hit.minute === minute) return hit.ids;
  const at = new Date(minute * 60_000);
  const openZone = new Map<string, boolean>();
  const isZoneOpen = (z: string) => {
    let o = openZone.get(z);
    if (o === undefined) openZone.set(z, (o = safeIsOpen(window, z, at)));
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
