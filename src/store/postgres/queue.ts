/** The dialer's claims and attempts on PostgreSQL: set-based statements, for many workers at once. */
import { type RawBuilder, sql } from 'kysely';
import { consented } from '../shared/consent.js';
import type { Executor } from '../../db/index.js';
import { PostgresEventStore } from '../events.js';
import type { AttemptOpening, ClaimRequest, Closing } from '../queue.js';
import { CLAIMED_STATUS, type ClaimRow, dueTime, iso, notListed, unheld, SharedQueueStore, startedItem } from '../shared/queue.js';
import { plannedWithValues } from '../../db/planned.js';

/** the due time, exactly as the index expression spells it (migration 0002) */
const due = sql`coalesce(next_attempt_at, scheduled_for, '') collate "C"`;
const after = (now: number | null) => (now === null ? sql`` : sql`and ${due} > ${iso(now)}`);

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

/** the priorities present, walked as a loose index scan: one probe per distinct priority, at most 101 */
const priorities = (campaignId: string | RawBuilder<unknown>) => sql`
  priorities(p) as (
    select max(priority) from leads
    where campaign_id = ${campaignId} and status in ('raw', 'attempting')
    union all
    select (select max(priority) from leads
            where campaign_id = ${campaignId} and status in ('raw', 'attempting') and priority < priorities.p)
    from priorities where priorities.p is not null
  )`;

/** the earliest due time of the campaign's claimable leads after now (of all, with now null): one index probe per priority */
const firstDue = (campaignId: string | RawBuilder<unknown>, now: number | null) => sql<{ d: string | null }>`
  with recursive ${priorities(campaignId)}
  select min(x.d) as d from priorities cross join lateral (
    select ${due} as d from leads
    where campaign_id = ${campaignId} and status in ('raw', 'attempting') and priority = priorities.p ${after(now)}
      and ${notListed(campaignId)} and ${consented('postgres', campaignId)}
    order by ${due} limit 1
  ) x`;

/**
 * One statement: each priority's due range is read from its start, lazily,
 * stopping at the first priorities that fill the limit. SKIP LOCKED passes
 * over rows another worker is claiming this instant, and a row that worker
 * has just committed is re-checked against the WHERE clause (its due time is
 * now its lease), so two workers never take the same lead.
 *
 * The same statement writes the claim's lead.status_changed event (the leads
 * it moves from raw, best first as claimedLeads orders them; the text of
 * json_build_object, which readers parse) and its NOTIFY: one round trip
 * fewer under the campaign's lock (bench row 7).
 */
function claimStatement(r: ClaimRequest) {
  const dueBy = iso(r.dueBy ?? r.now);
  const lease = iso(r.now + r.leaseMs);
  return sql<ClaimRow>`${plannedWithValues}
    with recursive ${priorities(r.campaignId)},
    picked as (
      select c.* from priorities cross join lateral (
        select seq, status as prev_status, next_attempt_at as prev_next from leads
        where campaign_id = ${r.campaignId} and status in ('raw', 'attempting') and priority = priorities.p
          and ${due} <= ${dueBy} and attempts < ${r.maxAttempts} + extra_attempts ${inZones(r.openZones)}
          and ${unheld} and ${notListed(r.campaignId)} and ${consented('postgres', r.campaignId)}
        order by ${due}, seq
        limit ${r.limit}
        for update skip locked
      ) c
      limit ${r.limit}
    ),
    claimed as (
      update leads set status = ${CLAIMED_STATUS}, claimed_by = ${r.workerId}, claimed_at = ${r.now}, next_attempt_at = ${lease}
      from picked where leads.seq = picked.seq
      returning leads.seq, leads.id, leads.campaign_id, leads.phone_number, leads.external_id, leads.metadata,
        leads.priority, leads.scheduled_for, picked.prev_status, picked.prev_next, leads.attempts, leads.extra_attempts, leads.local_zones
    ),
    started as (
      insert into events (type, company_id, campaign_id, created_at, count, items)
      select 'lead.status_changed', (select company_id from campaigns where id = ${r.campaignId}), ${r.campaignId}, ${r.now}, count(*),
        json_agg(json_build_object('leadId', id, 'externalId', external_id, 'from', prev_status, 'to', ${CLAIMED_STATUS}::text)
          order by priority desc, coalesce(prev_next, scheduled_for, '') collate "C", seq)::text
      from claimed where prev_status <> ${CLAIMED_STATUS}
      having count(*) > 0
      returning campaign_id
    )
    select claimed.*, (select count(pg_notify('leadline_events', campaign_id)) from started) as notified from claimed`;
}

export class PostgresQueueStore extends SharedQueueStore {
  protected readonly due = due;
  protected override readonly statementsWriteEvents = true;

  protected on(ex: Executor): PostgresQueueStore {
    return new PostgresQueueStore(this.db, ex, new PostgresEventStore(ex));
  }

  protected inSeqs(seqs: readonly number[]): RawBuilder<unknown> {
    return sql`seq = any(${seqs}::bigint[])`;
  }

  protected async claimRows(r: ClaimRequest): Promise<ClaimRow[]> {
    return (await claimStatement(r).execute(this.ex)).rows;
  }

  async claimPlan(r: ClaimRequest): Promise<string[]> {
    const { rows } = await sql<{ 'QUERY PLAN': string }>`explain ${claimStatement(r)}`.execute(this.ex);
    return rows.map((x) => x['QUERY PLAN']);
  }

  async nextDue(campaignId: string, now: number | null): Promise<number | null> {
    const { rows } = await sql<{ d: string | null }>`${plannedWithValues} ${firstDue(campaignId, now)}`.execute(this.ex);
    return dueTime(rows[0]?.d);
  }

  /**
   * one statement: nextDue's, run for each id as a correlated subquery (a round trip and a transaction each cost more than the probes);
   * prepared, as its values are an array whose plan does not depend on what it holds
   */
  override async nextDueMany(campaignIds: readonly string[]): Promise<Map<string, number | null>> {
    const { rows } = await sql<{ id: string; d: string | null }>`
      select c.id, (${firstDue(sql.ref('c.id'), null)}) as d from unnest(${campaignIds}::text[]) as c(id)`.execute(this.ex);
    return new Map(rows.map((r) => [r.id, dueTime(r.d)]));
  }

  /**
   * One statement for the batch: the claims checked, their rows locked as an
   * update locks them (a delete of the lead waits for this transaction; one
   * that came first leaves nothing to lock, and a claim changed meanwhile is
   * checked again on its new row), and the attempts written. A lock rather
   * than an update that changes nothing: such an update still writes a new
   * version of the row and, the leads' pages being full, an entry in each of
   * its 13 indexes.
   */
  protected async openRows(batch: readonly AttemptOpening[], now: number): Promise<Set<string>> {
    if (batch.length === 0) return new Set();
    const input = JSON.stringify(
      batch.map((o, ord) => ({
        ord,
        seq: o.lead.seq,
        worker: o.lead.claimedBy,
        claimedAt: o.lead.claimedAt,
        attemptId: o.attemptId,
        leadId: o.lead.id,
        attempt: o.lead.attempts + 1,
        startedAt: o.startedAt,
        phone: o.phoneNumber,
        deadline: o.deadlineAt,
        item: JSON.stringify(startedItem(o)),
      })),
    );
    // The attempt.started events too (one per campaign, in the order of the batch, as the shared
    // open writes them; their items the text JSON.stringify gives), and their NOTIFY.
    const { rows } = await sql<{ attempt_id: string }>`
      with input as (
        select * from json_to_recordset(${input}::json) as i(ord int, seq bigint, worker text, "claimedAt" bigint, "attemptId" text,
          "leadId" text, attempt int, "startedAt" bigint, phone text, deadline bigint, item text)
      ),
      held as (
        select l.seq, l.campaign_id from leads l join input i on l.seq = i.seq
        where l.claimed_by = i.worker and l.claimed_at = i."claimedAt" and l.next_attempt_at >= ${iso(now)}
        for no key update of l
      ),
      opened as (
        insert into attempts (attempt_id, lead_id, campaign_id, company_id, attempt, started_at, success, phone_number, worker,
          claimed_at, state, counts, deadline_at)
        select i."attemptId", i."leadId", h.campaign_id, c.company_id, i.attempt, i."startedAt", 0, i.phone, i.worker,
          i."claimedAt", 'open', 1, i.deadline
        from input i join held h on h.seq = i.seq join campaigns c on c.id = h.campaign_id
        returning attempt_id, campaign_id, company_id
      ),
      started as (
        insert into events (type, company_id, campaign_id, created_at, count, items)
        select 'attempt.started', g.company_id, g.campaign_id, ${now}, g.n, g.items from (
          select o.campaign_id, o.company_id, count(*) as n, '[' || string_agg(i.item, ',' order by i.ord) || ']' as items, min(i.ord) as first
          from opened o join input i on i."attemptId" = o.attempt_id group by o.campaign_id, o.company_id
        ) g
        order by g.first
        returning campaign_id
      )
      select attempt_id, (select count(pg_notify('leadline_events', campaign_id)) from started) as notified from opened`.execute(this.ex);
    return new Set(rows.map((r) => r.attempt_id));
  }

  /**
   * One statement for the batch: the attempts closed, and the leads of the ones it closed moved,
   * each fenced by the claim its call was made under. A bulk delete of the same leads can take
   * their row locks in another order; PostgreSQL then aborts one side, and the transaction runs
   * again. (Two statements before: one round trip more for every batch of calls, bench row 7.)
   */
  protected async closeAndMove(batch: readonly Closing[], closedBy: string): Promise<{ closed: Set<string>; moved: Set<number> }> {
    const input = JSON.stringify(
      batch.map((c) => ({
        id: c.attemptId,
        f: c.finishedAt,
        s: c.success ? 1 : 0,
        o: c.outcome,
        r: c.reason,
        d: c.durationSeconds,
        n: c.counts ? 1 : 0,
        ...c.move,
      })),
    );
    const { rows } = await sql<{ attempt_id: string | null; seq: number | null }>`
      with input as (
        select * from json_to_recordset(${input}::json) as i(id text, f bigint, s int, o text, r text, d double precision, n int,
          seq bigint, worker text, "claimedAt" bigint, "from" text, "to" text, prev int, next text)
      ),
      closed as (
        update attempts a set state = 'closed', closed_by = ${closedBy}, finished_at = i.f, success = i.s, outcome = i.o,
          reason = i.r, duration_seconds = i.d, counts = i.n
        from input i
        where a.attempt_id = i.id and a.state <> 'closed'
        returning a.attempt_id
      ),
      moved as (
        update leads l
        set status = i."to", attempts = i.prev + i.n, claimed_by = null, claimed_at = null, next_attempt_at = i.next
        from input i join closed on closed.attempt_id = i.id
        where l.seq = i.seq and l.claimed_by = i.worker and l.claimed_at = i."claimedAt"
          and l.status = i."from" and l.attempts = i.prev
        returning l.seq
      )
      select attempt_id, null::bigint as seq from closed
      union all
      select null, seq from moved`.execute(this.ex);
    const closed = new Set<string>();
    const moved = new Set<number>();
    for (const r of rows) {
      if (r.attempt_id !== null) closed.add(r.attempt_id);
      if (r.seq !== null) moved.add(Number(r.seq));
    }
    return { closed, moved };
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
