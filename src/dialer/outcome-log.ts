/** One log line per lead the worker handled (pino), and the counts a run reports. */
import type { Logger } from 'pino';
import type { LeadOutcome } from './call.js';
import type { ClaimedLead } from '../store/queue.js';

export interface RunSummary {
  /** attempts recorded */
  attempts: number;
  /** of which concluded the lead */
  concluded: number;
  /** leads put off until the called person's local window opens */
  deferred: number;
}

export function logOutcome(log: Logger, summary: RunSummary, lead: ClaimedLead, r: LeadOutcome, ms: number): void {
  // The number dialled stays in the attempts table, out of the logs.
  const base = { campaignId: lead.campaignId, leadId: lead.id, worker: lead.claimedBy };
  if (r.kind === 'deferred') {
    summary.deferred++;
    log.info({ ...base, until: r.until }, 'outside the local calling window; deferred');
  } else if (r.kind === 'released') {
    log.info(base, 'released at shutdown');
  } else if (r.result === 'recorded') {
    summary.attempts++;
    if (r.status === 'concluded') summary.concluded++;
    log.info({ ...base, attempt: r.attempt, outcome: r.outcome, success: r.success, reason: r.reason, status: r.status, ms }, 'attempt');
  } else {
    const why = r.result === 'gone' ? 'the lead was deleted during the call' : 'the claim was lost';
    log.warn({ ...base, outcome: r.outcome, success: r.success, reason: r.reason, ms, result: r.result }, `attempt not recorded: ${why}`);
  }
}
