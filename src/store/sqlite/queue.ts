/** The dialer's claims and attempts on SQLite: one writer at a time, so each step is an immediate transaction. */
import { type RawBuilder, sql } from 'kysely';
import { consented } from '../shared/consent.js';
import type { Executor } from '../../db/index.js';
import { KyselyEventStore } from '../events.js';
import type { AttemptOpening, ClaimRequest, Closing } from '../queue.js';
import { CLAIMED_STATUS, type ClaimRow, dueTime, iso, notListed, unheld, SharedQueueStore } from '../shared/queue.js';

/** the due time, exactly as the index expression spells it (migration 0002) */
const due = sql`coalesce(next_attempt_at, scheduled_for, '')`;
const inList = (column: string, values: readonly number[]) =>
  sql`${sql.ref(column)} in (select value from json_each(${JSON.stringify(values)}))`;
const inZones = (zones: readonly number[] | null) => (zones === null ? sql`` : sql`and ${inList('local_zones', zones)}`);

/** the highest priority below `below` among the campaign's claimable leads */
const topPriority = (campaignId: string, below: number) => sql<{ p: number | null }>`
  select max(priority) as p from leads
  where campaign_id = ${campaignId} and status in ('raw', 'attempting') and priority < ${below}`;

/**
 * The due leads of one priority, best first. The limit is bound as `? + 0`:
 * a bare `LIMIT ?` informs SQLite's plan, so every new value would re-prepare
 * the statement.
 */
const dueOfPriority = (r: ClaimRequest, priority: number, limit: number) => sql<ClaimRow>`
  select seq, id, campaign_id, phone_number, external_id, metadata, priority, scheduled_for,
    status as prev_status, next_attempt_at as prev_next, attempts, extra_attempts, local_zones
  from leads
  where campaign_id = ${r.campaignId} and status in ('raw', 'attempting') and priority = ${priority}
    and ${due} <= ${iso(r.dueBy ?? r.now)} and attempts < ${r.maxAttempts} + extra_attempts ${inZones(r.openZones)}
    and ${unheld} and ${notListed(r.campaignId)} and ${consented('sqlite', r.campaignId)}
  order by ${due}, seq
  limit ${limit} + 0`;

export class SqliteQueueStore extends SharedQueueStore {
  protected readonly due = due;

  protected on(ex: Executor): SqliteQueueStore {
    return new SqliteQueueStore(this.db, ex, new KyselyEventStore(ex));
  }

  protected inSeqs(seqs: readonly number[]): RawBuilder<unknown> {
    return inList('seq', seqs);
  }

  /** the priorities present, highest first: one index probe each (a loose index scan, at most 101) */
  private async *priorities(campaignId: string): AsyncGenerator<number> {
    let below = Number.MAX_SAFE_INTEGER;
    for (;;) {
      const p = (await topPriority(campaignId, below).execute(this.ex)).rows[0]?.p;
      if (p === null || p === undefined) return;
      yield p;
      below = p;
    }
  }

  /**
   * "Highest priority first, among due leads" is not one index range: a plain
   * ORDER BY priority DESC would wade through every not-yet-due lead of a
   * higher priority on every claim. So it walks the priorities present and
   * reads each one's due range from its start, stopping at the first
   * priorities that fill the limit.
   */
  protected async claimRows(r: ClaimRequest): Promise<ClaimRow[]> {
    const picked: ClaimRow[] = [];
    for await (const p of this.priorities(r.campaignId)) {
      picked.push(...(await dueOfPriority(r, p, r.limit - picked.length).execute(this.ex)).rows);
      if (picked.length >= r.limit) break;
    }
    if (picked.length > 0) {
      await sql`update leads
        set status = ${CLAIMED_STATUS}, claimed_by = ${r.workerId}, claimed_at = ${r.now}, next_attempt_at = ${iso(r.now + r.leaseMs)}
        where ${inList(
          'seq',
          picked.map((x) => x.seq),
        )}`.execute(this.ex);
    }
    return picked;
  }

  async claimPlan(r: ClaimRequest): Promise<string[]> {
    const plan = async (q: RawBuilder<unknown>) =>
      (await sql<{ detail: string }>`explain query plan ${q}`.execute(this.ex)).rows.map((x) => x.detail);
    return [...(await plan(topPriority(r.campaignId, Number.MAX_SAFE_INTEGER))), ...(await plan(dueOfPriority(r, 0, r.limit)))];
  }

  /** the earliest due time after now, over the priorities present (one index probe each) */
  async nextDue(campaignId: string, now: number | null): Promise<number | null> {
    let first: string | null = null;
    const after = now === null ? sql`` : sql`and ${due} > ${iso(now)}`;
    for await (const p of this.priorities(campaignId)) {
      const { rows } = await sql<{ d: string }>`select ${due} as d from leads
        where campaign_id = ${campaignId} and status in ('raw', 'attempting') and priority = ${p} ${after} and ${notListed(campaignId)}
          and ${consented('sqlite', campaignId)}
        order by ${due} limit 1`.execute(this.ex);
      const d = rows[0]?.d;
      if (d !== undefined && (first === null || d < first)) first = d;
    }
    return dueTime(first);
  }

  protected async openRows(batch: readonly AttemptOpening[], now: number): Promise<Set<string>> {
    const opened = new Set<string>();
    for (const o of batch) {
      const l = o.lead;
      // a lapsed lease is recovery's to end (releaseExpired): no attempt starts under it
      const { numAffectedRows } = await sql`update leads set claimed_at = claimed_at
        where seq = ${l.seq} and claimed_by = ${l.claimedBy} and claimed_at = ${l.claimedAt}
          and next_attempt_at >= ${iso(now)}`.execute(this.ex);
      if (!numAffectedRows) continue;
      await sql`insert into attempts (attempt_id, lead_id, campaign_id, company_id, attempt, started_at, success, phone_number, worker,
          claimed_at, state, counts, deadline_at)
        select ${o.attemptId}, ${l.id}, id, company_id, ${l.attempts + 1}, ${o.startedAt}, 0, ${o.phoneNumber}, ${l.claimedBy},
          ${l.claimedAt}, 'open', 1, ${o.deadlineAt}
        from campaigns where id = ${l.campaignId}`.execute(this.ex);
      opened.add(o.attemptId);
    }
    return opened;
  }

  protected async closeAndMove(batch: readonly Closing[], closedBy: string): Promise<{ closed: Set<string>; moved: Set<number> }> {
    const closed = await this.closeRows(batch, closedBy);
    return { closed, moved: await this.moveLeads(batch.filter((c) => closed.has(c.attemptId))) };
  }

  private async closeRows(batch: readonly Closing[], closedBy: string): Promise<Set<string>> {
    const closed = new Set<string>();
    for (const c of batch) {
      const { numAffectedRows } = await sql`update attempts
        set state = 'closed', closed_by = ${closedBy}, finished_at = ${c.finishedAt}, success = ${c.success ? 1 : 0},
          outcome = ${c.outcome}, reason = ${c.reason}, duration_seconds = ${c.durationSeconds}, counts = ${c.counts ? 1 : 0}
        where attempt_id = ${c.attemptId} and state <> 'closed'`.execute(this.ex);
      if (numAffectedRows) closed.add(c.attemptId);
    }
    return closed;
  }

  private async moveLeads(batch: readonly Closing[]): Promise<Set<number>> {
    const moved = new Set<number>();
    for (const { move: m, counts } of batch) {
      if (m === null) continue;
      const { numAffectedRows } = await sql`update leads
        set status = ${m.to}, attempts = ${m.prev + (counts ? 1 : 0)}, claimed_by = null, claimed_at = null, next_attempt_at = ${m.next}
        where seq = ${m.seq} and claimed_by = ${m.worker} and claimed_at = ${m.claimedAt} and status = ${m.from} and attempts = ${m.prev}`.execute(
        this.ex,
      );
      if (numAffectedRows) moved.add(m.seq);
    }
    return moved;
  }

  async withoutZones(o: { campaignId?: string; limit: number }) {
    const campaign = o.campaignId === undefined ? sql`` : sql`and campaign_id = ${o.campaignId}`;
    const { rows } = await sql<{ seq: number; phone_number: string | null; metadata: string }>`
      select seq, phone_number, metadata from leads where local_zones is null ${campaign} limit ${o.limit}`.execute(this.ex);
    return rows.map((r) => ({ ...r, seq: Number(r.seq) }));
  }

  async setZones(pairs: readonly { seq: number; zoneSet: number }[]): Promise<void> {
    if (pairs.length === 0) return;
    await sql`update leads set local_zones = v.z
      from (select json_extract(value, '$.seq') as s, json_extract(value, '$.zoneSet') as z from json_each(${JSON.stringify(pairs)})) v
      where leads.seq = v.s and leads.local_zones is null`.execute(this.ex);
  }
}
