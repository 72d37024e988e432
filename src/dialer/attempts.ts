/**
 * How an attempt closes: its end, and the lead's move that end brings, as
 * the lifecycle table decides (attempting → attempting | exhausted |
 * concluded, or back to the status the claim found for a call never placed).
 * The store writes both at once (store/queue.ts close).
 */
import { retryDelayFor } from '../campaigns/retry-delays.js';
import { orderedIds } from '../ids.js';
import { type LeadStatus, nextStatus } from '../leads/lifecycle.js';
import type { Store } from '../store/index.js';
import { type AttemptResult, type ClaimedLead, type Closing, DO_NOT_CALL, type PendingAttempt } from '../store/queue.js';
import { backoffAfter } from './not-placed.js';

export type { AttemptResult } from '../store/queue.js';

/** how an attempt ended */
export interface Ending {
  success: boolean;
  outcome: string;
  reason: string | null;
  durationSeconds: number | null;
  /** false for a call never placed: it spends no attempt, and the lead is due again after `retryInMs` */
  counts: boolean;
  finishedAt: number;
  /** for a call never placed: the backoff before the lead is due again */
  retryInMs?: number;
}

const NOT_PLACED = 'not-placed';

/**
 * How an outcome learnt after the platform took the call counts (an outcome report, a
 * platform's webhook, reconciliation): a call the platform never placed spends no attempt, as
 * a refusal at dial time does, and its lead waits the first backoff of such a refusal rather
 * than being due at once (a platform that takes every call and then places none would
 * otherwise be asked again and again, as fast as it answers).
 */
export function countsWhenReported(outcome: string): Pick<Ending, 'counts' | 'retryInMs'> {
  return outcome === NOT_PLACED ? { counts: false, retryInMs: backoffAfter(1) } : { counts: true };
}

/** the campaign's retry delays: a default, and the outcomes that differ from it */
export interface RetryDelays {
  defaultMs: number;
  byOutcome: string;
}

export const newAttemptId = (): string => orderedIds('at_', 1)[0]!;

interface MoveFrom {
  seq: number;
  worker: string;
  claimedAt: number;
  /** the status the lead has while held */
  from: LeadStatus;
  /** the status the claim found, to give back when nothing was placed */
  claimedFrom: LeadStatus;
  /** attempts before this one */
  prev: number;
  maxAttempts: number;
}

function move(m: MoveFrom, e: Ending, retry: RetryDelays): NonNullable<Closing['move']> {
  if (!e.counts) {
    const to = nextStatus(m.from, 'release', { claimedFrom: m.claimedFrom });
    return {
      seq: m.seq,
      worker: m.worker,
      claimedAt: m.claimedAt,
      from: m.from,
      to,
      prev: m.prev,
      next: new Date(e.finishedAt + (e.retryInMs ?? 0)).toISOString(),
    };
  }
  // The person asked not to be called: that concludes the lead whatever `success` says (a receiver
  // may well report an opt-out as a call that did not succeed); a retry would call them again.
  const concludes = e.success || e.outcome === DO_NOT_CALL;
  const to = nextStatus(m.from, concludes ? 'succeed' : 'fail', { attempts: m.prev + 1, maxAttempts: m.maxAttempts });
  const next =
    to === 'attempting' ? new Date(e.finishedAt + retryDelayFor(e.outcome, retry.defaultMs, retry.byOutcome)).toISOString() : null;
  return { seq: m.seq, worker: m.worker, claimedAt: m.claimedAt, from: m.from, to, prev: m.prev, next };
}

const ending = (attemptId: string, e: Ending) => ({
  attemptId,
  finishedAt: e.finishedAt,
  success: e.success,
  outcome: e.outcome,
  reason: e.reason,
  durationSeconds: e.durationSeconds,
  counts: e.counts,
});

/** The close of an attempt the worker made under its own claim. Throws LifecycleError, writing nothing, when the table refuses the move. */
export function closingFor(lead: ClaimedLead, attemptId: string, e: Ending, retry: RetryDelays): Closing {
  const from = nextStatus(lead.previousStatus, 'claim');
  const m = {
    seq: lead.seq,
    worker: lead.claimedBy,
    claimedAt: lead.claimedAt,
    from,
    claimedFrom: lead.previousStatus,
    prev: lead.attempts,
    maxAttempts: lead.maxAttempts,
  };
  return {
    ...ending(attemptId, e),
    campaignId: lead.campaignId,
    leadId: lead.id,
    externalId: lead.externalId,
    attempt: lead.attempts + 1,
    move: move(m, e, retry),
  };
}

/**
 * The close of an attempt the worker no longer follows: an outcome report,
 * its call timeout, or recovery after its worker died. The lead (if it is
 * still there) is fenced by the claim the call was made under; a lead still
 * at 0 attempts was claimed from raw.
 */
export function closingForPending(p: PendingAttempt, e: Ending): Closing {
  const base = {
    ...ending(p.attemptId, e),
    campaignId: p.campaignId,
    leadId: p.leadId,
    externalId: p.lead?.externalId ?? null,
    attempt: p.attempt,
  };
  if (p.lead === null) return { ...base, move: null };
  const l = p.lead;
  const claimedFrom: LeadStatus = l.attempts === 0 ? 'raw' : 'attempting';
  const m = {
    seq: l.seq,
    worker: p.worker,
    claimedAt: p.claimedAt,
    from: l.status,
    claimedFrom,
    prev: l.attempts,
    maxAttempts: p.campaign.maxAttempts + l.extraAttempts,
  };
  // a lead no longer held, or not attempting, is left alone: the fence of the move refuses it
  if (l.status !== 'attempting')
    return {
      ...base,
      move: { seq: l.seq, worker: p.worker, claimedAt: p.claimedAt, from: l.status, to: l.status, prev: l.attempts, next: null },
    };
  return { ...base, move: move(m, e, { defaultMs: p.campaign.retryDelayMs, byOutcome: p.campaign.retryDelays }) };
}

/** the attempt of the earlier (synchronous) recording, for callers that record an attempt in one step */
export interface AttemptRecord {
  success: boolean;
  outcome: string;
  /** the number dialled; null when there was none to dial */
  phoneNumber: string | null;
  reason: string | null;
  startedAt: number;
  finishedAt: number;
  /** the campaign's retry delay, for a failed attempt with attempts left */
  retryDelayMs: number;
}

/** The close `recordAttempt` writes; throws LifecycleError when the table refuses the move. */
export const planAttempt = (lead: ClaimedLead, a: AttemptRecord, attemptId = newAttemptId()): Closing =>
  closingFor(
    lead,
    attemptId,
    { success: a.success, outcome: a.outcome, reason: a.reason, durationSeconds: null, counts: true, finishedAt: a.finishedAt },
    { defaultMs: a.retryDelayMs, byOutcome: '' },
  );

/** Opens and closes an attempt at once: a call whose outcome was known before it was written (tests, tools). */
export async function recordAttempt(
  store: Store,
  lead: ClaimedLead,
  a: AttemptRecord,
): Promise<AttemptResult | { result: 'do-not-call' | 'number busy' | 'call cap' }> {
  const closing = planAttempt(lead, a);
  const [opened] = await store.queue.open(
    [{ attemptId: closing.attemptId, lead, phoneNumber: a.phoneNumber, startedAt: a.startedAt, deadlineAt: a.finishedAt }],
    a.startedAt,
  );
  if (opened !== 'opened') return { result: opened! };
  return (await store.queue.close([closing], 'dialer', a.finishedAt))[0]!;
}
