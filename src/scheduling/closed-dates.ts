/**
 * A campaign's closed dates (--closed-dates): ISO dates, and `us-federal` for
 * the US federal holidays of each year (us-federal-holidays.ts). A date is
 * closed on the called person's own calendar: the date is read in each zone
 * the person may be in, like the local window (src/dialer/due.ts).
 */
import { type WeeklyHours, nextOpen } from './hours.js';
import { usFederalHolidayOn } from './us-federal-holidays.js';
import { MINUTES_PER_DAY, wallClock } from './zoned.js';

export interface ClosedDates {
  /** canonical spec: `us-federal` first, then the dates in order, comma-separated; '' for none */
  spec: string;
  dates: ReadonlySet<string>;
  usFederal: boolean;
}

const US_FEDERAL = 'us-federal';
/** bounds that catch typos (a year 20266), not calendars */
const MIN_YEAR = 2000;
const MAX_YEAR = 2100;
const MAX_DATES = 1000;

function isoDate(raw: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(raw);
  const y = Number(m?.[1]);
  const t = m ? new Date(Date.UTC(y, Number(m[2]) - 1, Number(m[3]))) : null;
  if (!t || t.toISOString().slice(0, 10) !== raw || y < MIN_YEAR || y > MAX_YEAR) {
    throw new Error(`"${raw}" is not a date YYYY-MM-DD from ${MIN_YEAR} to ${MAX_YEAR} or ${US_FEDERAL}`);
  }
  return raw;
}

const NO_CLOSED_DATES: ClosedDates = Object.freeze({ spec: '', dates: new Set<string>(), usFederal: false });

/** "2026-12-24,us-federal"; '' or "none" for none. Throws with what is wrong. */
export function parseClosedDates(raw: string): ClosedDates {
  const items = raw
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter((s) => s !== '');
  if (items.length === 1 && items[0] === 'none') return NO_CLOSED_DATES;
  const usFederal = items.includes(US_FEDERAL);
  const dates = [...new Set(items.filter((s) => s !== US_FEDERAL).map(isoDate))].sort();
  if (dates.length > MAX_DATES) throw new Error(`at most ${MAX_DATES} dates`);
  return { spec: [...(usFederal ? [US_FEDERAL] : []), ...dates].join(','), dates: new Set(dates), usFederal };
}

/** a campaign's stored closed dates (canonical already), parsed; null when there are none */
export function closedDatesOf(stored: string): ClosedDates | null {
  return stored === '' ? null : parseClosedDates(stored);
}

/** the local date (YYYY-MM-DD) in a zone at an instant */
export function localDate(zone: string, at: number): string {
  return new Date(at + wallClock(zone, at).offset * 60_000).toISOString().slice(0, 10);
}

/** why a date is closed ("Christmas Day, us-federal", or "listed" for a date given), or null when it is not */
export function closedReason(closed: ClosedDates, date: string): string | null {
  if (closed.dates.has(date)) return 'listed';
  if (!closed.usFederal) return null;
  const h = usFederalHolidayOn(date);
  return h ? `${h.name}, ${US_FEDERAL}` : null;
}

export const isClosedAt = (closed: ClosedDates, zone: string, at: Date): boolean =>
  closedReason(closed, localDate(zone, at.getTime())) !== null;

/** the first instant after `at` whose local date in `zone` is later */
function nextLocalDay(zone: string, at: number): number {
  const today = localDate(zone, at);
  let t = at;
  // a zone's midnight may move with a DST change: step until the date changes, then back to its first minute
  for (let guard = 0; guard < 4 && localDate(zone, t) <= today; guard++) {
    t = Math.floor(t / 60_000) * 60_000 + (MINUTES_PER_DAY - (wallClock(zone, t).minuteOfWeek % MINUTES_PER_DAY)) * 60_000;
  }
  const back = t - (wallClock(zone, t).minuteOfWeek % MINUTES_PER_DAY) * 60_000;
  return back > at && localDate(zone, back) > today ? back : t;
}

// A year of closed days in a row would be a misconfiguration: give up rather than loop.
const MAX_SKIPPED_DAYS = 400;

/** isOpen, and the local date not closed */
export function nextOpenOutside(hours: WeeklyHours, zone: string, from: Date, closed: ClosedDates | null | undefined): Date | null {
  let at = from;
  for (let i = 0; i < MAX_SKIPPED_DAYS; i++) {
    const open = nextOpen(hours, zone, at);
    if (!open || !closed || !isClosedAt(closed, zone, open)) return open;
    at = new Date(nextLocalDay(zone, open.getTime()));
  }
  return null;
}
