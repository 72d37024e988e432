/**
 * One claimed lead, start to finish: check the called person's local time,
 * fetch the number for a prefetch lead, write the attempt (checking, in the
 * database, that the claim is still held and the lead still there), place the
 * call once, and record how it went. A lead is never called without its
 * attempt written first, and an attempt is never placed twice.
 */
import { callCapFor } from '../compliance/call-caps.js';
import { hasConsent } from '../compliance/consent.js';
import { regionalLimitFor, withRegionalLimit } from '../compliance/regional-rules.js';
import { parseMetadata } from '../leads/metadata.js';
import { isClosedAt } from '../scheduling/closed-dates.js';
import { isOpen } from '../scheduling/hours.js';
import type { Store } from '../store/index.js';
import type { AttemptOpening, AttemptResult, ClaimedLead, Closing, OpenResult } from '../store/queue.js';
import { closingFor, type Ending, newAttemptId } from './attempts.js';
import type { CampaignRow } from '../store/campaigns.js';
import { type CallingRules, callingRulesOf, type DialerCampaign } from './campaign.js';
import { earliestOpen, zonesToCheck } from './due.js';
import { zoneSetIdFor, zoneSetKeyOf, zonesOfSet } from './local-zones.js';
import { zonesForLead } from './phone-timezone.js';
import { predial } from './predial.js';
import { isPlatformName } from './providers/platforms/index.js';
import type { PlaceResult } from './providers/types.js';

export interface CallDeps {
  store: Store;
  now: () => number;
  predialTimeoutMs: number;
  /** opens an attempt right before its call (the recorder batches them) */
  open: (opening: AttemptOpening) => Promise<OpenResult>;
  /** closes an attempt (the recorder batches them) */
  close: (closing: Closing) => Promise<AttemptResult>;
  /** a call of the campaign could not be placed: the backoff before its lead is due again */
  notPlaced: (campaign: DialerCampaign, reason: string, retryAfterMs: number | undefined) => Promise<number>;
  /** a call of the campaign was placed (a run of calls not placed ends) */
  placed: (campaign: DialerCampaign) => Promise<void>;
  /** waits for the campaign's next call slot under --calls-per-second */
  pace?: (campaign: DialerCampaign, signal: AbortSignal) => Promise<void>;
}

export type LeadOutcome =
  /** the call is over and its attempt closed */
  | ({
      kind: 'attempt';
      attemptId: string;
      success: boolean;
      outcome: string;
      reason: string | null;
      phoneNumber: string | null;
    } & AttemptResult)
  /** the provider took the call (or may have): its outcome is reported later, or it closes as unknown at the call timeout */
  | { kind: 'awaiting'; attemptId: string; reason: string | null }
  /** nothing was placed: no attempt is spent, and the lead is due again after a backoff */
  | ({ kind: 'not placed'; attemptId: string; reason: string; retryInMs: number } & AttemptResult)
  /** outside the called person's local window: the claim is undone until the window opens (`until`, for the log) */
  | { kind: 'deferred'; until: string }
  /**
   * given back before anything was placed, due again as it was: the dialer is stopping, or,
   * after the wait for a --calls-per-second slot, the campaign's hours closed or it was paused
   */
  | { kind: 'released'; why: 'stopping' | 'outside hours' | 'paused' | 'no consent' }
  /** right before the call, the claim was found lost, the lead deleted, or its number on the do-not-call list: no call */
  | { kind: 'skipped'; why: 'claim lost' | 'gone' | 'do-not-call' | 'number busy' | 'call cap' };

/** how far dialLead got, for its caller when it throws */
export interface CallProgress {
  /**
   * the attempt is written (QueueStore.open answered 'opened'): from here the call may have been
   * placed, so a failure must not give the lead back as if it never was (Dialer.dial)
   */
  attemptOpened: boolean;
}

/** whether the campaign's calls wait for a slot (the Pacer's own test) */
const paced = (c: DialerCampaign) => c.row.calls_per_second !== null && c.row.calls_per_second > 0;

/** a row's calling rules, or null when one of them cannot be used */
const rulesOf = (row: CampaignRow): CallingRules | null => {
  try {
    return callingRulesOf(row);
  } catch {
    return null;
  }
};

/** When nothing overlaps (a narrow window over far-apart zones), look again a day later. */
const NO_OVERLAP_RETRY_MS = 24 * 3_600_000;

export async function dialLead(
  deps: CallDeps,
  campaign: DialerCampaign,
  lead: ClaimedLead,
  signal: AbortSignal,
  progress: CallProgress = { attemptOpened: false },
): Promise<LeadOutcome> {
  const { store } = deps;
  const metadata = parseMetadata(lead.metadata);
  /**
   * Undoes the claim when the window is closed, or the date a closed one, in
   * one of the zones; null when it is open in all. The window is the
   * campaign's, narrowed by the number's state under --regional-rules us.
   * The claim checks the campaign's own window only (it knows zones, not
   * states), so a lead held back by its state alone is given back due at its
   * state's next opening, or the claim would take it again at once.
   */
  const deferral = (
    number: string | null,
    leadZones: string[],
    learnt?: string[],
    rules: CallingRules = campaign,
  ): Promise<LeadOutcome> | null => {
    const zones = zonesToCheck(leadZones, rules.timezone);
    const now = new Date(deps.now());
    const own = { window: rules.localWindow, closed: rules.closedDates };
    const state = regionalLimitFor(rules.regionalRules, number);
    const { window, closed } = withRegionalLimit(own, state);
    const openIn = (w: typeof own) => zones.every((z) => isOpen(w.window, z, now) && !(w.closed && isClosedAt(w.closed, z, now)));
    if (openIn({ window, closed })) return null;
    const opens = earliestOpen(
      zones.map((z) => [window, z, closed] as const),
      now,
    );
    const until = new Date(opens ? opens.getTime() : now.getTime() + NO_OVERLAP_RETRY_MS).toISOString();
    const byStateOnly = state !== null && openIn(own);
    return (async () => {
      const localZones = learnt ? await zoneSetIdFor(store, zoneSetKeyOf(learnt)) : undefined;
      await store.queue.release(lead, { localZones, now: deps.now(), ...(byStateOnly ? { until } : {}) });
      return { kind: 'deferred', until };
    })();
  };
  const release = async (why: 'stopping' | 'outside hours' | 'paused' | 'no consent' = 'stopping'): Promise<LeadOutcome> => {
    await store.queue.release(lead, { now: deps.now() });
    return { kind: 'released', why };
  };

  // The claim took the lead inside its window (claim.ts); this catches a
  // window that closed since, on the same zones the claim used.
  const stored = lead.localZones === null ? undefined : await zonesOfSet(store, lead.localZones);
  const claimedZones = stored ?? zonesForLead({ phoneNumber: lead.phoneNumber, metadata });
  const early = deferral(lead.phoneNumber, claimedZones);
  if (early) return early;
  let phoneNumber = lead.phoneNumber;
  let zones = claimedZones;
  let predialFailure: string | null = null;
  if (phoneNumber === null) {
    const url = campaign.row.predial_url;
    const found = url
      ? await predial({
          url,
          secret: campaign.predialSecret,
          leadId: lead.id,
          campaignId: lead.campaignId,
          externalId: lead.externalId,
          timeoutMs: deps.predialTimeoutMs,
          signal,
        })
      : { ok: false as const, reason: 'no phone number and the campaign has no predial function' };
    if (signal.aborted) return release();
    if (found.ok) {
      phoneNumber = found.phoneNumber;
      // Now that the number is known, its zone may be too. If it is outside
      // its window the lead keeps those zones, and the claim leaves it alone
      // until they open (`explain` reads the same zones).
      zones = zonesForLead({ phoneNumber, metadata });
      const late = deferral(phoneNumber, zones, zones);
      if (late) return late;
    } else {
      predialFailure = found.reason;
    }
  }
  const learnt = lead.phoneNumber === null ? zones : undefined;
  // --calls-per-second: the wait comes before the attempt starts, so its start is the call's,
  // and after the predial lookup, so that what is spaced is the provider's requests (a lookup
  // of 900 ms then one of 0 ms would otherwise send two calls 100 ms apart under a cap of one
  // a second). A lead whose lookup failed places nothing and takes no slot.
  if (deps.pace && predialFailure === null) {
    await deps.pace(campaign, signal);
    if (signal.aborted) return release();
    if (paced(campaign)) {
      // The wait may be long (calls queue for their slots, one a second under
      // --calls-per-second 1), so what the claim and the checks above saw may
      // have changed: the call's window or date closed, the campaign's hours
      // ended, it was paused (a run of calls not placed), or its settings were
      // changed (a closed date added, the window narrowed, state rules or
      // consent switched on): checked again with the settings as they are now.
      // The call is not placed then, and its slot is left unused.
      const row = await store.campaigns.byId(campaign.id);
      if (!row || row.paused_at !== null) return release('paused');
      const rules = rulesOf(row);
      // settings that cannot be used now: as a pause, the campaign is read again (and reported unusable)
      if (!rules) return release('paused');
      const late = deferral(phoneNumber, zones, learnt, rules);
      if (late) return late;
      if (!isOpen(rules.hours, rules.timezone, new Date(deps.now()))) return release('outside hours');
      // --require-consent turned on meanwhile: the claim would not take this lead now
      if (row.require_consent && !hasConsent(metadata)) return release('no consent');
    }
  }
  const startedAt = deps.now();

  // Right before placing the call: the attempt is written, and only if the
  // claim is still this worker's, the lead still exists (a lead deleted
  // while its predial lookup ran is not called), its number is not on the
  // company's do-not-call list (listed since the claim, or a prefetch lead's
  // number learnt just now), no call to the number is in progress in the
  // company, and the number is under the company's call caps. A lead refused
  // for its number is given back: a listed one is not due while listed (a
  // prefetch lead keeps no number for the claim to check, so it waits the
  // campaign's retry delay), a capped one until the cap lets a call through,
  // a busy one the retry delay.
  const attemptId = newAttemptId();
  const opened = await deps.open({ attemptId, lead, phoneNumber, startedAt, deadlineAt: startedAt + campaign.callTimeoutMs });
  if (opened === 'do-not-call' || opened === 'number busy' || opened === 'call cap') {
    const now = deps.now();
    const cap = opened === 'call cap' ? await callCapFor(store, campaign.row.company_id, phoneNumber!, now) : null;
    const retry = new Date(cap ? cap.until : now + campaign.retry.defaultMs).toISOString();
    await store.queue.release(lead, { now, until: opened === 'do-not-call' && lead.phoneNumber !== null ? undefined : retry });
  }
  if (opened !== 'opened') return { kind: 'skipped', why: opened };
  progress.attemptOpened = true;

  const finish = async (e: Ending): Promise<AttemptResult> => deps.close(closingFor(lead, attemptId, e, campaign.retry));
  if (predialFailure !== null) {
    const e = {
      success: false,
      outcome: 'predial-failed',
      reason: predialFailure,
      durationSeconds: null,
      counts: true,
      finishedAt: deps.now(),
    };
    return { kind: 'attempt', attemptId, ...e, phoneNumber, ...(await finish(e)) };
  }
  // This dialer stopped (past its grace, or the claim lost) after the attempt was written: before
  // the request went out, or while the webhook provider's was still connecting (a platform's
  // create, once begun, is never cut short: what it answers counts). No one refused the call, so
  // it is no part of a run that pauses the campaign, and the lead is due again at once.
  const stoppedFirst = signal.aborted;
  const ours = () => stoppedFirst || (signal.aborted && !isPlatformName(campaign.row.provider));
  const result: PlaceResult = stoppedFirst
    ? { kind: 'not-placed', reason: 'the dialer stopped before placing the call' }
    : await campaign.provider.place(
        {
          attemptId,
          leadId: lead.id,
          campaignId: lead.campaignId,
          phoneNumber: phoneNumber!,
          externalId: lead.externalId,
          metadata,
          attempt: lead.attempts + 1,
        },
        signal,
      );
  switch (result.kind) {
    case 'finished': {
      await deps.placed(campaign);
      const e = {
        success: result.success,
        outcome: result.outcome,
        reason: result.reason ?? null,
        durationSeconds: result.durationSeconds ?? null,
        counts: true,
        finishedAt: deps.now(),
      };
      return { kind: 'attempt', attemptId, ...e, phoneNumber, ...(await finish(e)) };
    }
    case 'accepted':
    case 'unknown': {
      if (result.kind === 'accepted') await deps.placed(campaign);
      // The attempt and the lead's lease wait for the outcome (a report, a
      // provider's webhook, reconciliation) until the campaign's call timeout.
      const providerCallId = result.kind === 'accepted' ? result.providerCallId : null;
      const control = result.kind === 'accepted' ? (result.control ?? null) : null;
      await store.queue.accept(attemptId, { providerCallId, control, deadlineAt: startedAt + campaign.callTimeoutMs });
      return { kind: 'awaiting', attemptId, reason: result.kind === 'unknown' ? result.reason : null };
    }
    case 'not-placed': {
      const retryInMs = ours() ? 0 : await deps.notPlaced(campaign, result.reason, result.retryAfterMs);
      const e = {
        success: false,
        outcome: 'not-placed',
        reason: result.reason,
        durationSeconds: null,
        counts: false,
        finishedAt: deps.now(),
        retryInMs,
      };
      return { kind: 'not placed', attemptId, reason: result.reason, retryInMs, ...(await finish(e)) };
    }
  }
}
