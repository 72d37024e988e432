/**
 * Outcome reports: the end of a call that a provider took and reports later
 * (POST /api/v1/attempts/{attemptId}/outcome). Applied exactly once: the
 * first report closes the attempt and moves its lead; a repeat is a conflict
 * and changes nothing, except that an opt-out reported late still lists the
 * number (closedAlready).
 */
import { lateOutcomes } from './not-placed.js';
import { AppError } from '../errors.js';
import type { Access } from '../leads/service.js';
import type { LeadStatus } from '../leads/lifecycle.js';
import type { Store } from '../store/index.js';
import { DO_NOT_CALL } from '../store/queue.js';
import { closingForPending, countsWhenReported } from './attempts.js';

const OUTCOME_MESSAGES = {
  notFound: 'Attempt not found',
  repeat: 'Outcome already recorded for this attempt',
} as const;

export interface OutcomeReport {
  success: boolean;
  outcome: string;
  reason?: string;
  durationSeconds?: number;
}

export interface OutcomeRecorded {
  attemptId: string;
  recorded: true;
  leadStatus: LeadStatus | null;
}

export async function reportOutcome(
  store: Store,
  p: Access,
  attemptId: string,
  report: OutcomeReport,
  now: number,
): Promise<OutcomeRecorded> {
  const pending = await store.queue.pending(attemptId);
  if (!pending || !reachable(p, pending)) return closedAlready(store, p, attemptId, report, now);
  const closing = closingForPending(pending, {
    success: report.success,
    outcome: report.outcome,
    reason: report.reason ?? null,
    durationSeconds: report.durationSeconds ?? null,
    ...countsWhenReported(report.outcome),
    finishedAt: now,
  });
  const [result] = await store.queue.close([closing], 'report', now);
  // closed between the read and the close (the call timeout, recovery, another report)
  if (result!.result === 'already closed') return closedAlready(store, p, attemptId, report, now);
  await lateOutcomes(store, [{ campaignId: pending.campaignId, outcome: report.outcome }], now);
  return { attemptId, recorded: true, leadStatus: result!.result === 'recorded' ? result!.status : null };
}

const reachable = (p: Access, a: { companyId: string; campaignId: string }) =>
  a.companyId === p.companyId && (p.campaignId === null || p.campaignId === a.campaignId);

/**
 * A report for an attempt that is not awaiting one: a repeat of a report is a conflict, anything
 * else is not found, and the attempt and its lead are left as they are (the first outcome stands).
 * An opt-out is not thrown away with it, though: a `do-not-call` report for an attempt the key
 * may reach lists the number, as a late opt-out by webhook does (inbound.ts). The lead is not
 * concluded: the claim its call was made under is over (the lead may be held again, even in
 * another call), so no fenced move can reach it, and the listing alone keeps it from being called.
 */
async function closedAlready(store: Store, p: Access, attemptId: string, report: OutcomeReport, now: number): Promise<never> {
  const closed = await store.attempts.byAttemptId(attemptId);
  if (closed && reachable(p, closed) && report.outcome === DO_NOT_CALL)
    await listOptOut(store, { attemptId, ...closed }, { reason: report.reason ?? LATE_REPORT, now });
  if (closed && reachable(p, closed) && closed.closedBy === 'report') throw new AppError('conflict', OUTCOME_MESSAGES.repeat);
  throw new AppError('not_found', OUTCOME_MESSAGES.notFound);
}

const LATE_REPORT = 'opted out (reported after the attempt was closed)';

/**
 * An opt-out that arrived after its attempt was closed: the number goes on the company's
 * do-not-call list (source `call`), as closing an attempt with the outcome do-not-call does
 * (src/store/shared/queue.ts); a number listed already keeps its entry. When the call's lead was
 * deleted, closing the attempt replaced its number by the number's digest: then a number the
 * platform's own record of the call names (`named`) is listed instead, only if its digest is the
 * attempt's: exactly the number that was called, never one a payload merely claims. With no such
 * number (an outcome report names none) nothing is listed: the number went with its lead.
 */
export async function listOptOut(
  store: Store,
  a: { attemptId: string; companyId: string; phoneNumber: string | null },
  o: { named?: readonly (string | undefined)[]; reason: string; now: number },
): Promise<void> {
  let number = a.phoneNumber;
  for (const n of o.named ?? []) {
    if (number === null && n && (await store.attempts.called(a.attemptId, n))) number = n;
  }
  if (number === null) return;
  const listed = number;
  await store.transaction((tx) => tx.dnc.add(a.companyId, [listed], { source: 'call', reason: o.reason, now: o.now }));
}
