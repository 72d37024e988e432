/**
 * Recording attempts: the lead moves (attempting → attempting | exhausted |
 * concluded, as lifecycle.ts decides) and the attempt row is written, in
 * one step, for many finished calls at once (recorder.ts batches them).
 */
import { nextStatus } from '../leads/lifecycle.js';
import type { AttemptResult, ClaimedLead, PlannedAttempt } from '../store/queue.js';
import type { Store } from '../store/index.js';

export type { AttemptResult } from '../store/queue.js';

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

/** Decides the move; throws LifecycleError, writing nothing, when the table refuses it. */
export function planAttempt(lead: ClaimedLead, a: AttemptRecord): PlannedAttempt {
  const from = nextStatus(lead.previousStatus, 'claim');
  const attempt = lead.attempts + 1;
  const to = nextStatus(from, a.success ? 'succeed' : 'fail', { attempts: attempt, maxAttempts: lead.maxAttempts });
  return {
    seq: lead.seq,
    leadId: lead.id,
    campaignId: lead.campaignId,
    worker: lead.claimedBy,
    claimedAt: lead.claimedAt,
    from,
    to,
    prev: lead.attempts,
    next: to === 'attempting' ? new Date(a.finishedAt + a.retryDelayMs).toISOString() : null,
    startedAt: a.startedAt,
    finishedAt: a.finishedAt,
    success: a.success ? 1 : 0,
    outcome: a.outcome,
    phone: a.phoneNumber,
    reason: a.reason,
  };
}

/** Records one attempt: the move is written only while the claim is the call's. */
export async function recordAttempt(store: Store, lead: ClaimedLead, a: AttemptRecord): Promise<AttemptResult> {
  return (await store.queue.record([planAttempt(lead, a)]))[0]!;
}
