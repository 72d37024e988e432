// The calling window a US state allows, as a pure function of the state
// table (us-state-rules.ts): the federal 08:00-21:00 narrowed by every state
// rule part that applies to the kind of call, the days with no hours left,
// and what the state says of holidays. The dialer checks the result with
// hours.ts's isOpen/nextOpen in the called person's zone(s), like a
// campaign's local window.

import { DAYS, parseHours, parseLocalWindow, type WeeklyHours } from '../scheduling/hours.js';
import { FEDERAL_HOURS, FEDERAL_SOURCE, type RuleSource, type StateRule, US_STATE_RULES } from './us-state-rules.js';

/** 'automated': auto-dialled or artificial/prerecorded voice (leadline's calls); 'live': a person dials and talks. */
export type CallKind = 'automated' | 'live';

type Day = (typeof DAYS)[number];

interface HolidayRule {
  /** null: no calls on those holidays; else the only local window allowed on them. */
  readonly window: WeeklyHours | null;
  /** Which holidays, in the states' words (one entry per rule part). */
  readonly calendars: readonly string[];
}

export interface StateWindow {
  /** USPS code, upper case. */
  readonly state: string;
  /** Permitted local hours, federal and state combined (intersection). */
  readonly hours: WeeklyHours;
  /** Days of the week with no permitted minute. */
  readonly closedDays: readonly Day[];
  /** null when the state says nothing about holidays. */
  readonly holidays: HolidayRule | null;
  /** Where each restriction comes from, federal first. */
  readonly sources: readonly RuleSource[];
}

const BY_STATE = new Map(US_STATE_RULES.map((r) => [r.state, r]));
const FEDERAL = parseHours(FEDERAL_HOURS);

/** The state's rules stricter than federal law, or null when none is known (unknown codes too). */
export function stateRules(state: string): StateRule | null {
  return typeof state === 'string' ? (BY_STATE.get(state.trim().toUpperCase()) ?? null) : null;
}

/** Intervals in both a and b; both sorted and merged (WeeklyHours' invariant), so is the result. */
export function intersectHours(a: WeeklyHours, b: WeeklyHours): WeeklyHours {
  const out: (readonly [number, number])[] = [];
  let i = 0;
  let j = 0;
  while (i < a.intervals.length && j < b.intervals.length) {
    const [as, ae] = a.intervals[i]!;
    const [bs, be] = b.intervals[j]!;
    const s = Math.max(as, bs);
    const e = Math.min(ae, be);
    if (s < e) out.push(Object.freeze([s, e] as const));
    if (ae < be) i++;
    else j++;
  }
  return { intervals: out };
}

function closedDaysOf(h: WeeklyHours): Day[] {
  return DAYS.filter((_, d) => !h.intervals.some(([s, e]) => s < (d + 1) * 1440 && e > d * 1440));
}

/**
 * The window a call of this kind may be placed in, in the called person's
 * local time, for a US state (USPS code; DC included). A state with no
 * known stricter rule, or an unknown code, gets the federal window. Rule
 * parts whose `since` is after `at` are left out.
 */
export function stateWindow(state: string, kind: CallKind = 'automated', at: Date = new Date()): StateWindow {
  const rule = stateRules(state);
  let hours = FEDERAL;
  let holidayWindow: WeeklyHours | null | undefined;
  const calendars: string[] = [];
  const sources: RuleSource[] = [FEDERAL_SOURCE];
  for (const part of rule?.parts ?? []) {
    if (part.scope === 'automated' && kind !== 'automated') continue;
    if (part.since && Date.parse(part.since) > at.getTime()) continue;
    if (part.hours) hours = intersectHours(hours, parseHours(part.hours));
    if (part.holidays) {
      const w = part.holidays === 'closed' ? null : parseLocalWindow(part.holidays);
      holidayWindow = holidayWindow === undefined ? w : w && holidayWindow && intersectHours(w, holidayWindow);
      calendars.push(part.holidayCalendar ?? 'holidays');
    }
    sources.push(...part.sources);
  }
  return {
    state: rule?.state ?? (typeof state === 'string' ? state.trim().toUpperCase() : ''),
    hours,
    closedDays: closedDaysOf(hours),
    holidays: holidayWindow === undefined ? null : { window: holidayWindow && intersectHours(holidayWindow, FEDERAL), calendars },
    sources,
  };
}
