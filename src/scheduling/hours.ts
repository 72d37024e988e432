// Weekly calling hours, read on the wall clock of an IANA zone.
//
// Spec grammar (case-insensitive, spaces around "," and "+" are fine):
//   SPEC  := "never" | RULE ("," RULE)*
//   RULE  := DAYS " " TIME "-" TIME
//   DAYS  := ITEM ("+" ITEM)*
//   ITEM  := DAY | DAY "-" DAY          -- a range may wrap: "fri-mon"
//   DAY   := mon | tue | wed | thu | fri | sat | sun
//   TIME  := HH:MM, 00:00..23:59; "24:00" only as the end of a range
// Examples:
//   "mon-fri 09:00-17:00"
//   "mon-fri 09:00-12:00, mon-fri 13:00-17:00, sat 10:00-14:00"
//   "mon+wed+fri 18:00-21:00"
//   "fri 20:00-02:00"            -- end before start: Friday 20:00 to Saturday 02:00
//   "fri-mon 10:00-16:00"        -- Friday, Saturday, Sunday, Monday
//   "mon-sun 00:00-24:00"        -- always open
//   "never"                      -- never open (formatHours of empty hours)
// Rules may overlap; the hours are their union. A time is open by the local
// wall clock alone, so on a spring-forward day a window inside the skipped
// hour does not happen, and on a fall-back day a repeated wall time is open
// both times it occurs.

import { findTransition, floorMinute, MINUTES_PER_DAY, MINUTES_PER_WEEK, wallClock } from './zoned.js';

export { validateTimeZone } from './zoned.js';

/**
 * Open intervals as [start, end) minutes since Monday 00:00 local, sorted,
 * merged, inside [0, 10080]. A window over the Sunday/Monday boundary is
 * stored as two intervals, one ending at 10080 and one starting at 0.
 */
export interface WeeklyHours {
  readonly intervals: readonly (readonly [start: number, end: number])[];
}

export const DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export const DEFAULT_LOCAL_WINDOW = '08:00-21:00';
const SEARCH_MS = 8 * 24 * 3_600_000;

class HoursError extends Error {
  readonly reason: string;
  constructor(spec: string, reason: string, kind = 'hours') {
    super(`invalid ${kind} "${spec}": ${reason}`);
    this.name = 'HoursError';
    this.reason = reason;
  }
}

function parseDay(word: string, spec: string): number {
  const d = (DAYS as readonly string[]).indexOf(word);
  if (d < 0) throw new HoursError(spec, `unknown day "${word}" (use ${DAYS.join(', ')})`);
  return d;
}

function parseDays(text: string, spec: string): number[] {
  const days = new Set<number>();
  for (const item of text.split('+').map((s) => s.trim())) {
    const [a, b, extra] = item.split('-');
    if (!a || extra !== undefined || b === '') throw new HoursError(spec, `bad days "${item}" (e.g. mon, mon-fri, sat+sun)`);
    const from = parseDay(a, spec);
    if (b === undefined) {
      days.add(from);
      continue;
    }
    const to = parseDay(b, spec);
    if (to === from) throw new HoursError(spec, `day range "${item}" names one day; write "${a}"`);
    for (let d = from; ; d = (d + 1) % 7) {
      days.add(d);
      if (d === to) break;
    }
  }
  return [...days];
}

function parseTime(text: string, spec: string, isEnd: boolean): number {
  const m = /^(\d\d):(\d\d)$/.exec(text);
  const h = m ? Number(m[1]) : NaN;
  const min = m ? Number(m[2]) : NaN;
  if (h === 24 && min === 0) {
    if (isEnd) return MINUTES_PER_DAY;
    throw new HoursError(spec, '24:00 can only end a range');
  }
  if (!(h <= 23 && min <= 59)) throw new HoursError(spec, `bad time "${text}" (use HH:MM from 00:00 to 23:59, or 24:00 as an end)`);
  return h * 60 + min;
}

function normalize(raw: [number, number][]): WeeklyHours {
  const pieces: [number, number][] = [];
  for (const [s, e] of raw) {
    if (e <= MINUTES_PER_WEEK) pieces.push([s, e]);
    else pieces.push([s, MINUTES_PER_WEEK], [0, e - MINUTES_PER_WEEK]);
  }
  pieces.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const out: [number, number][] = [];
  for (const [s, e] of pieces) {
    const last = out[out.length - 1];
    if (last && s <= last[1]) last[1] = Math.max(last[1], e);
    else out.push([s, e]);
  }
  return { intervals: out.map(([s, e]) => Object.freeze([s, e] as const)) };
}

export function parseHours(spec: string): WeeklyHours {
  if (typeof spec !== 'string') throw new HoursError(String(spec), 'expected a string');
  const text = spec.trim().toLowerCase();
  if (text === 'never') return { intervals: [] };
  if (text === '') throw new HoursError(spec, 'empty; e.g. "mon-fri 09:00-17:00"');
  const raw: [number, number][] = [];
  for (const rule of text.split(',').map((r) => r.trim())) {
    const m = /^(\S+(?:\s*\+\s*\S+)*)\s+(\S+)-(\S+)$/.exec(rule);
    if (!m) throw new HoursError(spec, `rule "${rule}" should look like "mon-fri 09:00-17:00"`);
    const days = parseDays(m[1]!, spec);
    const start = parseTime(m[2]!, spec, false);
    let end = parseTime(m[3]!, spec, true);
    if (end === start) throw new HoursError(spec, `empty range ${m[2]}-${m[3]}`);
    if (end < start) end += MINUTES_PER_DAY; // crosses midnight into the next day
    for (const d of days) raw.push([d * MINUTES_PER_DAY + start, d * MINUTES_PER_DAY + end]);
  }
  return normalize(raw);
}

/** "HH:MM-HH:MM" applied to every day, e.g. the called person's local window. */
export function parseLocalWindow(s: string): WeeklyHours {
  const text = typeof s === 'string' ? s.trim() : '';
  if (!/^\S+-\S+$/.test(text)) throw new HoursError(String(s), 'expected HH:MM-HH:MM, e.g. 08:00-21:00', 'local window');
  try {
    return parseHours(`mon-sun ${text}`);
  } catch (e) {
    if (e instanceof HoursError) throw new HoursError(s, e.reason, 'local window');
    throw e;
  }
}

const hhmm = (m: number) => `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;

function formatDays(days: number[]): string {
  if (days.length === 7) return 'mon-sun';
  const set = new Set(days);
  const runs: string[] = [];
  // Runs are circular so a weekend window reads "fri-mon", not "mon+fri-sun".
  for (const start of [...set].sort((a, b) => a - b)) {
    if (set.has((start + 6) % 7)) continue;
    let end = start;
    while (set.has((end + 1) % 7)) end = (end + 1) % 7;
    runs.push(end === start ? DAYS[start]! : `${DAYS[start]}-${DAYS[end]}`);
  }
  return runs.join('+');
}

/** Canonical spec; parseHours(formatHours(h)) reproduces h exactly. */
export function formatHours(h: WeeklyHours): string {
  const iv = h.intervals.map(([s, e]) => [s, e] as [number, number]);
  if (iv.length === 0) return 'never';
  if (iv.length === 1 && iv[0]![0] === 0 && iv[0]![1] === MINUTES_PER_WEEK) return 'mon-sun 00:00-24:00';
  // Re-join the window cut at the week boundary so it prints as one overnight rule.
  const first = iv[0]!;
  const last = iv[iv.length - 1]!;
  if (iv.length > 1 && first[0] === 0 && last[1] === MINUTES_PER_WEEK) {
    last[1] += first[1];
    iv.shift();
  }
  // Cut into day pieces: a window under 24h stays whole (possibly overnight),
  // longer ones split at midnights so each piece fits one rule.
  const groups = new Map<string, number[]>();
  const add = (start: number, end: number) => {
    const day = Math.floor(start / MINUTES_PER_DAY);
    const tod = start - day * MINUTES_PER_DAY;
    const endTod = end - day * MINUTES_PER_DAY;
    const key = `${hhmm(tod)}-${hhmm(endTod > MINUTES_PER_DAY ? endTod - MINUTES_PER_DAY : endTod)}`;
    groups.set(key, [...(groups.get(key) ?? []), day % 7]);
  };
  for (const [s, e] of iv) {
    if (e - s < MINUTES_PER_DAY || (s % MINUTES_PER_DAY === 0 && e - s === MINUTES_PER_DAY)) {
      add(s, e);
      continue;
    }
    let cur = s;
    while (cur < e) {
      const next = Math.min(e, (Math.floor(cur / MINUTES_PER_DAY) + 1) * MINUTES_PER_DAY);
      add(cur, next);
      cur = next;
    }
  }
  const rules = [...groups].map(([times, days]) => ({ days: formatDays(days), times, first: Math.min(...days) }));
  rules.sort((a, b) => a.first - b.first || (a.times < b.times ? -1 : 1));
  return rules.map((r) => `${r.days} ${r.times}`).join(', ');
}

function inside(h: WeeklyHours, minuteOfWeek: number): boolean {
  return h.intervals.some(([s, e]) => minuteOfWeek >= s && minuteOfWeek < e);
}

export function isOpen(h: WeeklyHours, timeZone: string, at: Date): boolean {
  return inside(h, wallClock(timeZone, at.getTime()).minuteOfWeek);
}

/**
 * Earliest instant >= at when isOpen holds; null if none within 8 days.
 * Jumps straight to the next local opening, assuming the UTC offset holds;
 * if the offset changed on the way (DST), it restarts from the transition
 * instant, which is exactly "the first instant after the gap" when an
 * opening time was skipped, and never passes a first occurrence on fall-back.
 */
export function nextOpen(h: WeeklyHours, timeZone: string, at: Date): Date | null {
  const start = at.getTime();
  const here = wallClock(timeZone, start);
  if (inside(h, here.minuteOfWeek)) return new Date(start);
  if (h.intervals.length === 0) return null;
  let t = floorMinute(start);
  let clock = here;
  for (let guard = 0; guard < 64; guard++) {
    const m = clock.minuteOfWeek;
    if (inside(h, m)) return new Date(t);
    const wait = Math.min(...h.intervals.map(([s]) => (s - m + MINUTES_PER_WEEK) % MINUTES_PER_WEEK || MINUTES_PER_WEEK));
    let next = t + wait * 60_000;
    if (next - start > SEARCH_MS) return null;
    let nextClock = wallClock(timeZone, next);
    if (nextClock.offset !== clock.offset) {
      next = findTransition(timeZone, t, next);
      nextClock = wallClock(timeZone, next);
    }
    t = next;
    clock = nextClock;
  }
  return null;
}
