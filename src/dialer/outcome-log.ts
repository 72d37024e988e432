/** One log line per lead the worker handled (pino), and the counts a run reports. */
import type { Logger } from 'pino';
import type { ClaimedLead } from '../store/queue.js';
import type { LeadOutcome } from './call.js';

export interface RunSummary {
  /** attempts recorded */
  attempts: number;
  /** of which concluded the lead */
  concluded: number;
  /** leads put off until the called person's local window opens */
  deferred: number;
  /** calls handed over to a provider that reports their outcome later (not in attempts until it does) */
  awaiting: number;
}

const SKIPPED = {
  gone: 'not called: the lead was deleted',
  'claim lost': 'not called: the claim was lost',
  'do-not-call': "not called: the number is on the company's do-not-call list",
  'number busy': 'not called: a call to the number is in progress in another campaign',
  'call cap': "not called: the number is at the company's per-number call cap",
} as const;

const RELEASED = {
  stopping: 'released before the call: the dialer is stopping',
  'outside hours': "released before the call: the campaign's calling hours ended while it waited for its slot",
  paused: 'released before the call: the campaign was paused while it waited for its slot',
  'no consent':
    'released before the call: the campaign came to require consent, which the lead does not record, while it waited for its slot',
} as const;

export function logOutcome(log: Logger, summary: RunSummary, lead: ClaimedLead, r: LeadOutcome, ms: number): void {
  // The number dialled stays in the attempts table, out of the logs.
  const base = { campaignId: lead.campaignId, leadId: lead.id, worker: lead.claimedBy };
  switch (r.kind) {
    case 'deferred':
      summary.deferred++;
      log.info({ ...base, until: r.until }, 'outside the local calling window; deferred');
      return;
    case 'released':
      log.info({ ...base, why: r.why }, RELEASED[r.why]);
      return;
    case 'skipped':
      log.warn({ ...base, why: r.why }, SKIPPED[r.why]);
      return;
    case 'awaiting':
      summary.awaiting++;
      log.info(
        { ...base, attemptId: r.attemptId, ms, ...(r.reason ? { reason: r.reason } : {}) },
        'call handed over; its outcome comes later',
      );
      return;
    case 'not placed':
      log.warn({ ...base, attemptId: r.attemptId, reason: r.reason, retryInMs: r.retryInMs, ms }, 'call not placed; no attempt spent');
      return;
    case 'attempt':
      if (r.result === 'recorded') {
        summary.attempts++;
        if (r.status === 'concluded') summary.concluded++;
        log.info(
          {
            ...base,
            attemptId: r.attemptId,
            attempt: r.attempt,
            outcome: r.outcome,
            success: r.success,
            reason: r.reason,
            status: r.status,
            ms,
          },
          'attempt',
        );
      } else {
        const why =
          r.result === 'gone'
            ? 'the lead was deleted during the call'
            : r.result === 'claim lost'
              ? 'the claim was lost'
              : 'it was closed already';
        log.warn(
          { ...base, attemptId: r.attemptId, outcome: r.outcome, success: r.success, reason: r.reason, ms, result: r.result },
          `attempt recorded; the lead was not moved: ${why}`,
        );
      }
  }
}
