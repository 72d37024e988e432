/** The dialer's claims and attempts on PostgreSQL: each a single statement, for many workers at once. */
import { type RawBuilder, sql } from 'kysely';
import type { ClaimedLead, ClaimRequest, PlannedAttempt } from '../queue.js';
import { CLAIMED_STATUS, type ClaimRow, claimedLeads, iso, SharedQueueStore } from '../shared/queue.js';

/** the due time, exactly as the index expression spells it (migration 0002) */
const due = sql`coalesce(next_attempt_at, scheduled_for, '') collate "C"`;

/**
 * The local window condition: the lead's zone set is one of the open ones,
 * checked on each row the walk reads, like attempts. Spelt so that the planner
 * cannot estimate it from the column's statistics (which know nothing of the
 * window, and right after leads are added see only NULLs): `local_zones =
 * any(...)` estimated at one row would make it read and sort a priority's
 * whole due range instead of walking it in order; `array_position(...) is not
 * null` is taken to hold for nearly every row, which is what a campaign mostly sees.
 */
const inZones = (zones: readonly number[] | null) =>
  zones === null ? sql`` : sql`and array_position(${zones}::int[], local_zones) is not null`;

/**
 * One statement. The priorities present are walked as a loose index scan (a
 * recursive CTE: one probe per distinct priority, at most 101), and each
 * one's due range read from its start, lazily: it stops at the first
 * priorities that fill the limit. SKIP LOCKED passes over rows another worker
 * is claiming this instant, and a row that worker has just committed is
 * re-checked against the WHERE clause (its due time is now its lease), so two
 * workers never take the same lead.
 */
function claimStatement(r: ClaimRequest) {
  const dueBy = iso(r.dueBy ?? r.now);
  const lease = iso(r.now + r.leaseMs);
  return sql<ClaimRow>`
    with recursive priorities(p) as (
      select max(priority) from leads
      where campaign_id = ${r.campaignId} and status in ('raw', 'attempting')
      union all
      select (select max(priority) from leads
              where campaign_id = ${r.campaignId} and status in ('raw', 'attempting') and priority < priorities.p)
      from priorities where priorities.p is not null
    ),
    picked as (
      select c.* from priorities cross join lateral (
        select seq, status as prev_status, next_attempt_at as prev_next from leads
        where campaign_id = ${r.campaignId} and status in ('raw', 'attempting') and priority = priorities.p
          and ${due} <= ${dueBy} and attempts < ${r.maxAttempts} + extra_attempts ${inZones(r.openZones)}
        order by ${due}, seq
        limit ${r.limit}
        for update skip locked
      ) c
      limit ${r.limit}
    )
    update leads set status = ${CLAIMED_STATUS}, claimed_by = ${r.workerId}, claimed_at = ${r.now}, next_attempt_at = ${lease}
    from picked where leads.seq = picked.seq
    returning leads.seq, leads.id, leads.campaign_id, leads.phone_number, leads.external_id, leads.metadata,
      leads.priority, leads.scheduled_for, picked.prev_status, picked.prev_next, leads.attempts, leads.extra_attempts, leads.local_zones`;
}

export class PostgresQueueStore extends SharedQueueStore {
  protected inSeqs(seqs: readonly number[]): RawBuilder<unknown> {
    return sql`seq = any(${seqs}::bigint[])`;
  }

  async claim(r: ClaimRequest): Promise<ClaimedLead[]> {
    if (r.limit < 1 || r.openZones?.length === 0) return [];
    const { rows } = await claimStatement(r).execute(this.ex);
    return claimedLeads(rows, r);
  }

  async claimPlan(r: ClaimRequest): Promise<string[]> {
    const { rows } = await sql<{ 'QUERY PLAN': string }>`explain ${claimStatement(r)}`.execute(this.ex);
    return rows.map((x) => x['QUERY PLAN']);
  }

  /**
   * One statement for the whole batch: the attempt rows exist exactly for the
   * leads that moved. A bulk delete of the same leads can take their row
   * locks in another order; PostgreSQL then aborts one side, and this side
   * runs again.
   */
  protected async write(batch: readonly PlannedAttempt[]): Promise<Set<number>> {
    const json = JSON.stringify(batch);
    const { rows } = await this.retrying(() =>
      sql<{ seq: number }>`
        with input as (
          select * from json_to_recordset(${json}::json) as i(
            seq bigint, "leadId" text, "campaignId" text, worker text, "claimedAt" bigint, "from" text, "to" text,
            prev int, next text, "startedAt" bigint, "finishedAt" bigint, success int, outcome text, phone text, reason text)
        ),
        moved as (
          update leads l
          set status = i."to", attempts = i.prev + 1, claimed_by = null, claimed_at = null, next_attempt_at = i.next
          from input i
          where l.seq = i.seq and l.claimed_by = i.worker and l.claimed_at = i."claimedAt"
            and l.status = i."from" and l.attempts = i.prev
          returning l.seq
        ),
        written as (
          insert into attempts (lead_id, campaign_id, attempt, started_at, finished_at, success, outcome, phone_number, reason, worker)
          select i."leadId", i."campaignId", i.prev + 1, i."startedAt", i."finishedAt", i.success, i.outcome, i.phone, i.reason, i.worker
          from input i join moved m on m.seq = i.seq
        )
        select seq from moved`.execute(this.ex),
    );
    return new Set(rows.map((r) => Number(r.seq)));
  }

  async withoutZones(o: { campaignId?: string; limit: number; skipLocked?: boolean }) {
    const campaign = o.campaignId === undefined ? sql`` : sql`and campaign_id = ${o.campaignId}`;
    const lock = o.skipLocked ? sql`for update skip locked` : sql``;
    const { rows } = await sql<{ seq: number; phone_number: string | null; metadata: string }>`
      select seq, phone_number, metadata from leads where local_zones is null ${campaign} limit ${o.limit} ${lock}`.execute(this.ex);
    return rows.map((r) => ({ ...r, seq: Number(r.seq) }));
  }

  async setZones(pairs: readonly { seq: number; zoneSet: number }[]): Promise<void> {
    if (pairs.length === 0) return;
    await sql`update leads set local_zones = v."zoneSet" from json_to_recordset(${JSON.stringify(pairs)}::json) as v(seq bigint, "zoneSet" int)
      where leads.seq = v.seq and leads.local_zones is null`.execute(this.ex);
  }
}
