/**
 * Outcome reports: the end of a call that a provider took and reports later
 * (POST /api/v1/attempts/{attemptId}/outcome). Applied exactly once: the
 * first report closes the attempt and moves its lead; a repeat is a conflict
 * and changes nothing.
 */
import { AppError } from '../errors.js';
import type { Access } from '../leads/service.js';
import type { LeadStatus } from '../leads/lifecycle.js';
import type { Store } from '../store/index.js';
import { closingForPending } from './attempts.js';

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
  const reachable = (a: { companyId: string; campaignId: string }) =>
    a.companyId === p.companyId && (p.campaignId === null || p.campaignId === a.campaignId);
  const pending = await store.queue.pending(attemptId);
  if (!pending || !reachable(pending)) {
    // closed already: a repeat of a report is a conflict; anything else is not awaiting one
    const closed = await store.attempts.byAttemptId(attemptId);
    if (closed && reachable(closed) && closed.closedBy === 'report') throw new AppError('conflict', OUTCOME_MESSAGES.repeat);
    throw new AppError('not_found', OUTCOME_MESSAGES.notFound);
  }
  const closing = closingForPending(pending, {
    success: report.success,
    outcome: report.outcome,
    reason: report.reason ?? null,
    durationSeconds: report.durationSeconds ?? null,
    counts: true,
    finishedAt: now,
  });
  const [result] = await store.queue.close([closing], 'report', now);
  if (result!.result === 'already closed') throw new AppError('conflict', OUTCOME_MESSAGES.repeat);
  return { attemptId, recorded: true, leadStatus: result!.result === 'recorded' ? result!.status : null };
}
