// Why is (or isn't) a lead callable right now, and when will it be?
// The dialer's queue query filters on the same conditions; this function is
// the readable reference the CLI's "why not called" output is built on.

import type { LeadStatus } from '../leads/lifecycle.js';
import type { RegionalLimit } from '../compliance/regional-rules.js';
import { type ClosedDates, closedReason, isClosedAt, localDate, nextOpenOutside } from '../scheduling/closed-dates.js';
import { isOpen, type WeeklyHours } from '../scheduling/hours.js';

const DUE_REASONS = [
  'already concluded',
  'attempts used up',
  'scheduled later',
  'outside hours',
  'local time',
  'closed date',
  "outside the state's calling hours",
  'claimed by another worker',
  'campaign paused',
  "on the company's do-not-call list",
  "at the company's per-number call cap",
  'no consent recorded',
] as const;
export type DueReason = (typeof DUE_REASONS)[number];

export interface DueInput {
  status: LeadStatus;
  attempts: number;
  maxAttempts: number;
  scheduledFor: Date | null;
  nextAttemptAt: Date | null;
  claimedBy: string | null;
  claimExpiresAt: Date | null;
  campaign: {
    hours: WeeklyHours;
    timezone: string;
    localWindow: WeeklyHours;
    pausedReason?: string | null;
    /** --closed-dates: dates on which nobody is called, read on the called person's calendar (in every zone checked) */
    closedDates?: ClosedDates | null;
  };
  /**
   * Zones the called person may be in (zonesForLead). The local window must
   * hold in every one; [] means nothing is known, so the campaign's zone is used.
   */
  leadZones: string[];
  /** the lead's number's entry on its company's do-not-call list; absent or null when not listed */
  doNotCall?: { addedAt: Date; source: string } | null;
  /** the company's per-number call cap the number is at, and when a call is next allowed; absent or null when none */
  callCap?: { cap: string; until: Date } | null;
  /** --regional-rules us: what the number's state allows (regionalLimitFor); absent or null when no state rule applies */
  regional?: RegionalLimit | null;
  /** --require-consent: whether metadata.consentAt holds a timestamp (hasConsent); absent when the campaign does not require it */
  consent?: boolean;
}

export interface DueExplanation {
  due: boolean;
  reasons: DueReason[];
  /** what a reason needs said besides its name (why the campaign is paused) */
  details: Partial<Record<DueReason, string>>;
  /** Earliest instant >= now when every time-based condition holds; null if never (or not while paused). */
  nextDueAt: Date | null;
  /** the IANA zones the local window is checked in: the lead's, or the campaign's when none is known */
  zones: string[];
}

// Each pass can only move forward, so a handful is plenty when the windows
// overlap; hitting the cap means they (practically) never do.
const MAX_PASSES = 32;

const later = (a: Date, b: Date | null) => (b && b.getTime() > a.getTime() ? b : a);

/** The zones whose local window must hold: the lead's own, or the campaign's when none is known. */
export const zonesToCheck = (leadZones: readonly string[], campaignTimezone: string): string[] =>
  leadZones.length > 0 ? [...leadZones] : [campaignTimezone];

export function explainDue(input: DueInput, now: Date): DueExplanation {
  const { campaign } = input;
  const zones = zonesToCheck(input.leadZones, campaign.timezone);
  const reasons: DueReason[] = [];
  const t = now.getTime();

  const concluded = input.status === 'concluded';
  const usedUp = input.status === 'exhausted' || input.attempts >= input.maxAttempts;
  // A claim without an expiry is held until its worker reports back; it
  // blocks now but has no time at which it lapses, so nextDueAt ignores it.
  const claimed = input.claimedBy !== null && (input.claimExpiresAt === null || input.claimExpiresAt.getTime() > t);

  if (concluded) reasons.push('already concluded');
  if (usedUp) reasons.push('attempts used up');
  if ((input.scheduledFor?.getTime() ?? -Infinity) > t || (input.nextAttemptAt?.getTime() ?? -Infinity) > t) {
    reasons.push('scheduled later');
  }
  if (!isOpen(campaign.hours, campaign.timezone, now)) reasons.push('outside hours');
  if (zones.some((z) => !isOpen(campaign.localWindow, z, now))) reasons.push('local time');
  const details: DueExplanation['details'] = {};
  const closedIn = closedDatesIn(campaign.closedDates, zones, now);
  if (closedIn) {
    reasons.push('closed date');
    details['closed date'] = closedIn;
  }
  const regional = input.regional ?? null;
  if (
    regional &&
    zones.some((z) => !isOpen(regional.hours, z, now) || (regional.closedDates && isClosedAt(regional.closedDates, z, now)))
  ) {
    reasons.push("outside the state's calling hours");
    details["outside the state's calling hours"] = regional.label;
  }
  if (claimed) reasons.push('claimed by another worker');
  const paused = typeof campaign.pausedReason === 'string';
  if (paused) {
    reasons.push('campaign paused');
    details['campaign paused'] = campaign.pausedReason!;
  }

  const listed = input.doNotCall ?? null;
  if (listed) {
    reasons.push("on the company's do-not-call list");
    details["on the company's do-not-call list"] = `added ${listed.addedAt.toISOString()}, source ${listed.source}`;
  }

  const capped = input.callCap && input.callCap.until.getTime() > t ? input.callCap : null;
  if (capped) {
    reasons.push("at the company's per-number call cap");
    details["at the company's per-number call cap"] = `${capped.cap}; next allowed at ${capped.until.toISOString()}`;
  }

  const noConsent = input.consent === false;
  if (noConsent) {
    reasons.push('no consent recorded');
    details['no consent recorded'] = 'the campaign requires metadata.consentAt, an ISO 8601 timestamp';
  }

  const nextDueAt = concluded || usedUp || paused || listed || noConsent ? null : earliestDue(input, zones, now);
  return { due: reasons.length === 0, reasons, details, nextDueAt, zones };
}

function earliestDue(input: DueInput, zones: string[], now: Date): Date | null {
  const { campaign } = input;
  const at = later(
    later(later(later(now, input.scheduledFor), input.nextAttemptAt), input.claimedBy ? input.claimExpiresAt : null),
    input.callCap?.until ?? null,
  );
  const regional = input.regional ?? null;
  return earliestOpen(
    [
      [campaign.hours, campaign.timezone],
      ...zones.map((z) => [campaign.localWindow, z, campaign.closedDates ?? null] as const),
      ...(regional ? zones.map((z) => [regional.hours, z, regional.closedDates] as const) : []),
    ],
    at,
  );
}

/** the closed dates in force now in the zones, as explain says them: "2026-12-25 in America/New_York (Christmas Day, us-federal)" */
function closedDatesIn(closed: ClosedDates | null | undefined, zones: readonly string[], now: Date): string | null {
  if (!closed) return null;
  const found = zones.flatMap((z) => {
    const date = localDate(z, now.getTime());
    const why = closedReason(closed, date);
    return why === null ? [] : [`${date} in ${z}${why === 'listed' ? '' : ` (${why})`}`];
  });
  return found.length > 0 ? found.join('; ') : null;
}

/**
 * Earliest instant >= from when every (hours, zone) pair is open at once, and
 * the local date in the zone of each not closed (its closed dates, if given);
 * null if they never overlap. The dialer uses it alone with the local windows
 * to defer a lead until the called person's window opens.
 */
export function earliestOpen(windows: readonly (readonly [WeeklyHours, string, (ClosedDates | null)?])[], from: Date): Date | null {
  let at = from;
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    const start = at.getTime();
    let next: Date | null = at;
    for (const [hours, zone, closed] of windows) {
      if (!next) break;
      next = nextOpenOutside(hours, zone, next, closed);
    }
    if (!next) return null;
    // Stable: every window was already open at `at`, so all hold together.
    if (next.getTime() === start) return next;
    at = next;
  }
  return null;
}
