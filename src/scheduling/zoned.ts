// Wall-clock reading in an IANA zone via Intl. Kept apart from hours.ts so
// phone-timezone.ts and due.ts can validate zones without the hours parser.

export const MINUTES_PER_DAY = 1440;
export const MINUTES_PER_WEEK = 7 * MINUTES_PER_DAY;
const MINUTE_MS = 60_000;

// Constructing an Intl.DateTimeFormat costs tens of microseconds (ICU loads
// zone rules); the dialer reads wall clocks thousands of times per tick.
const formatters = new Map<string, Intl.DateTimeFormat>();

class TimeZoneError extends RangeError {
  constructor(tz: string) {
    super(`invalid timezone "${tz}"`);
    this.name = 'TimeZoneError';
  }
}

function formatter(tz: string): Intl.DateTimeFormat {
  let f = formatters.get(tz);
  if (f) return f;
  // Intl on newer Node also accepts UTC offsets like "+05:00"; they are not
  // IANA zones and would silently ignore DST, so refuse them here.
  if (typeof tz !== 'string' || tz === '' || /^[+-]|^\s|\s$/.test(tz)) throw new TimeZoneError(String(tz));
  try {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
    });
  } catch {
    throw new TimeZoneError(tz);
  }
  formatters.set(tz, f);
  return f;
}

/**
 * Returns the zone name to store. Case is normalised ("america/new_york" ->
 * "America/New_York"), but aliases are kept as written because ICU would
 * otherwise rewrite e.g. "Asia/Kolkata" to its legacy "Asia/Calcutta".
 */
export function validateTimeZone(tz: string): string {
  const resolved = formatter(tz).resolvedOptions().timeZone;
  return resolved.toLowerCase() === tz.toLowerCase() ? resolved : tz;
}

export function isValidTimeZone(tz: unknown): tz is string {
  if (typeof tz !== 'string') return false;
  try {
    formatter(tz);
    return true;
  } catch {
    return false;
  }
}

export interface WallClock {
  /** Minutes since the local Monday 00:00, 0..10079. */
  readonly minuteOfWeek: number;
  /** Local minus UTC, in minutes. */
  readonly offset: number;
}

export function floorMinute(ms: number): number {
  return Math.floor(ms / MINUTE_MS) * MINUTE_MS;
}

/**
 * The last reading per zone: a reading holds for its whole minute, and a busy
 * dialer asks the same zones thousands of times a minute (formatToParts was
 * 2.4% of a worker's CPU in bench row 7). One entry per zone, so the map stays
 * as small as the formatters'.
 */
const lastReading = new Map<string, { t: number; clock: WallClock }>();

export function wallClock(tz: string, ms: number): WallClock {
  const t = floorMinute(ms);
  const last = lastReading.get(tz);
  if (last?.t === t) return last.clock;
  const clock = readWallClock(tz, t, ms);
  lastReading.set(tz, { t, clock });
  return clock;
}

function readWallClock(tz: string, t: number, ms: number): WallClock {
  const p: Record<string, number> = {};
  for (const part of formatter(tz).formatToParts(t)) {
    if (part.type !== 'literal') p[part.type] = Number(part.value);
  }
  const { year = NaN, month = NaN, day = NaN, minute = NaN } = p;
  // Some ICU builds still print midnight as 24 despite h23.
  const hour = (p.hour ?? NaN) % 24;
  const localDay = Date.UTC(year, month - 1, day);
  const weekday = (new Date(localDay).getUTCDay() + 6) % 7; // Monday = 0
  const offset = Math.round((localDay + (hour * 60 + minute) * MINUTE_MS - t) / MINUTE_MS);
  if (!Number.isFinite(offset)) throw new RangeError(`cannot read wall clock in ${tz} at ${new Date(ms).toISOString()}`);
  return { minuteOfWeek: weekday * MINUTES_PER_DAY + hour * 60 + minute, offset };
}

/**
 * First minute in (lo, hi] whose UTC offset differs from lo's; lo and hi are
 * minute-aligned and must have different offsets. Zone transitions fall on
 * whole minutes, so a minute-level bisection finds the exact instant.
 */
export function findTransition(tz: string, lo: number, hi: number): number {
  const before = wallClock(tz, lo).offset;
  while (hi - lo > MINUTE_MS) {
    const mid = lo + Math.floor((hi - lo) / MINUTE_MS / 2) * MINUTE_MS;
    if (wallClock(tz, mid).offset === before) lo = mid;
    else hi = mid;
  }
  return hi;
}
