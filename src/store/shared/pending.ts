/** Attempts not closed yet, read with their lead and campaign: what it takes to close one. */
import { type RawBuilder, sql } from 'kysely';
import type { Executor } from '../../db/index.js';
import type { LeadStatus } from '../../leads/lifecycle.js';
import type { PendingAttempt } from '../queue.js';

interface Row {
  attempt_id: string;
  attempt: number;
  state: 'open' | 'accepted';
  company_id: string;
  campaign_id: string;
  lead_id: string;
  worker: string;
  claimed_at: number;
  started_at: number;
  deadline_at: number | null;
  phone_number: string | null;
  provider_call_id: string | null;
  provider_control: string | null;
  seq: number | null;
  status: LeadStatus | null;
  attempts: number | null;
  extra_attempts: number | null;
  external_id: string | null;
  held: number | boolean | null;
  max_attempts: number;
  retry_delay_ms: number;
  retry_delays: string;
  provider: string;
  call_timeout_ms: number;
}

/** the attempts not closed that meet `where` (over `a` attempts, `l` leads, `c` campaigns), oldest first */
export async function pendingAttempts(ex: Executor, where: RawBuilder<unknown>, limit: number): Promise<PendingAttempt[]> {
  const { rows } = await sql<Row>`
    select a.attempt_id, a.attempt, a.state, a.company_id, a.campaign_id, a.lead_id, a.worker, a.claimed_at, a.started_at,
      a.deadline_at, a.phone_number, a.provider_call_id, a.provider_control,
      l.seq, l.status, l.attempts, l.extra_attempts, l.external_id,
      (l.claimed_by = a.worker and l.claimed_at = a.claimed_at) as held,
      c.max_attempts, c.retry_delay_ms, c.retry_delays, c.provider, c.call_timeout_ms
    from attempts a
      join campaigns c on c.id = a.campaign_id
      left join leads l on l.id = a.lead_id
    where a.state <> 'closed' and ${where}
    order by a.started_at
    limit ${limit}`.execute(ex);
  return rows.map((r) => ({
    attemptId: r.attempt_id,
    attempt: Number(r.attempt),
    state: r.state,
    companyId: r.company_id,
    campaignId: r.campaign_id,
    leadId: r.lead_id,
    worker: r.worker,
    claimedAt: Number(r.claimed_at),
    startedAt: Number(r.started_at),
    deadlineAt: r.deadline_at === null ? null : Number(r.deadline_at),
    phoneNumber: r.phone_number,
    providerCallId: r.provider_call_id,
    providerControl: r.provider_control,
    lead:
      r.seq === null
        ? null
        : {
            seq: Number(r.seq),
            status: r.status!,
            attempts: Number(r.attempts),
            extraAttempts: Number(r.extra_attempts),
            externalId: r.external_id,
            held: Boolean(r.held),
          },
    campaign: {
      maxAttempts: Number(r.max_attempts),
      retryDelayMs: Number(r.retry_delay_ms),
      retryDelays: r.retry_delays,
      provider: r.provider,
      callTimeoutMs: Number(r.call_timeout_ms),
    },
  }));
}
