/**
 * --regional-rules (docs/compliance.md, "Regional calling rules"): `us`, the
 * default, applies the US state table to every US number; `off` leaves the
 * campaign's own local window and closed dates alone.
 *
 * Under `us` a number's calling window is the campaign's local window
 * narrowed to the hours its state allows automated calls (stateWindow: the
 * federal 08:00-21:00 and every stricter state rule), read on the called
 * person's clock in each zone the number may be in. A state that forbids
 * calls on its holidays (or allows only a shorter window on them) gets no
 * calls on the US federal holidays: leadline does not compute the states' own
 * calendars, and the federal days are the part of them it can compute. Erring
 * on the side of not calling, a holiday window is not used: the day is closed.
 *
 * The claim knows a lead's zones, not its state, so the dialer applies this
 * right before the call (dialer/call.ts) and gives a lead outside its state's
 * hours back, due at their next opening; `lead explain` says so (dialer/due.ts).
 */
import { NANP_REGIONS, usStateForPhone } from '../dialer/nanp-area-codes.js';
import { type ClosedDates, parseClosedDates } from '../scheduling/closed-dates.js';
import { formatHours, type WeeklyHours } from '../scheduling/hours.js';
import { intersectHours, stateRules, stateWindow } from './us-state-window.js';

const REGIONAL_RULES = ['us', 'off'] as const;
export type RegionalRules = (typeof REGIONAL_RULES)[number];

export const isRegionalRules = (v: string): v is RegionalRules => (REGIONAL_RULES as readonly string[]).includes(v);

/** What a number's state adds to a campaign's own window and dates. */
export interface RegionalLimit {
  /** USPS code */
  readonly state: string;
  /** the hours the state allows, as explain shows them */
  readonly hours: WeeklyHours;
  /** US federal holidays when the state restricts holidays, else null */
  readonly closedDates: ClosedDates | null;
  /** "Alabama (AL): mon-sat 08:00-20:00, no calls on US federal holidays" */
  readonly label: string;
}

const FEDERAL_HOLIDAYS = parseClosedDates('us-federal');

// One per state, built on first use: the table is code, so it only changes
// with a new release (a rule part with a later `since` would apply from the
// next start, which no rule in the table has).
const limits = new Map<string, RegionalLimit>();

function limitOf(state: string): RegionalLimit {
  let limit = limits.get(state);
  if (!limit) {
    const w = stateWindow(state, 'automated');
    const name = stateRules(state)?.name ?? NANP_REGIONS[state]?.name ?? state;
    const holidays = w.holidays !== null;
    const label = `${name} (${state}): ${formatHours(w.hours)}${holidays ? ', no calls on US federal holidays' : ''}`;
    limit = Object.freeze({ state, hours: w.hours, closedDates: holidays ? FEDERAL_HOLIDAYS : null, label });
    limits.set(state, limit);
  }
  return limit;
}

/** The state limit for a number under the campaign's rules; null when none applies (rules off, not a US number, no number yet). */
export function regionalLimitFor(rules: string, phoneNumber: string | null): RegionalLimit | null {
  if (rules !== 'us' || phoneNumber === null) return null;
  const state = usStateForPhone(phoneNumber);
  return state === null ? null : limitOf(state);
}

/** The campaign's window and closed dates with the state's limit applied. */
export function withRegionalLimit(
  own: { window: WeeklyHours; closed: ClosedDates | null },
  limit: RegionalLimit | null,
): { window: WeeklyHours; closed: ClosedDates | null } {
  if (!limit) return own;
  const closed = !limit.closedDates
    ? own.closed
    : own.closed
      ? { ...own.closed, spec: parseClosedDates(`us-federal,${own.closed.spec}`).spec, usFederal: true }
      : limit.closedDates;
  return { window: intersectHours(own.window, limit.hours), closed };
}
