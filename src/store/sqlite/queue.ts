/** The dialer's claims and attempts on SQLite: one writer at a time, so each step is an immediate transaction. */
import { type RawBuilder, sql } from 'kysely';
import type { ClaimedLead, ClaimRequest, PlannedAttempt } from '../queue.js';
import { CLAIMED_STATUS, type ClaimRow, claimedLeads, iso, SharedQueueStore } from '../shared/queue.js';

/** the due time, exactly as the index expression spells it (migration 0002) */
const due = sql`coalesce(next_attempt_at, scheduled_for, '')`;
const inList = (column: string, values: readonly number[]) => sql`${sql.ref(column)} in (select value from json_each(${JSON.stringify(values)}))`;
const inZones = (zones: readonly number[] | null) => (zones === null ? sql`` : sql`and ${inList('local_zones', zones)}`);

/** the highest priority below `below` among the campaign's claimable leads */
const topPriority = (r: ClaimRequest, below: number) => sql<{ p: number | null }>`
  select max(priority) as p from leads
  where campaign_id = ${r.campaignId} and status in ('raw', 'attempting') and priority < ${below}`;

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
  order by ${due}, seq
  limit ${limit} + 0`;

export class SqliteQueueStore extends SharedQueueStore {
  protected inSeqs(seqs: readonly number[]): RawBuilder<unknown> {
    return inList('seq', seqs);
  }

  /**
   * "Highest priority first, among due leads" is not one index range: a plain
   * ORDER BY priority DESC would wade through every not-yet-due lead of a
   * higher priority on every claim. So it walks the priorities present (one
   * index probe per distinct priority, at most 101) and reads each one's due
   * range from its start, stopping at the first priorities that fill the
   * limit. BEGIN IMMEDIATE makes the reads and the update one atomic step.
   */
  async claim(r: ClaimRequest): Promise<ClaimedLead[]> {
    if (r.limit < 1 || r.openZones?.length === 0) return [];
    const rows = await this.inWriteTx(async (tx) => {
      const picked: ClaimRow[] = [];
      let below = Number.MAX_SAFE_INTEGER;
      while (picked.length < r.limit) {
        const p = (await topPriority(r, below).execute(tx)).rows[0]?.p;
        if (p === null || p === undefined) break;
        picked.push(...(await dueOfPriority(r, p, r.limit - picked.length).execute(tx)).rows);
        below = p;
      }
      if (picked.length > 0) {
        await sql`update leads
          set status = ${CLAIMED_STATUS}, claimed_by = ${r.workerId}, claimed_at = ${r.now}, next_attempt_at = ${iso(r.now + r.leaseMs)}
          where ${inList('seq', picked.map((x) => x.seq))}`.execute(tx);
      }
      return picked;
    });
    return claimedLeads(rows, r);
  }

  async claimPlan(r: ClaimRequest): Promise<string[]> {
    const plan = async (q: RawBuilder<unknown>) =>
      (await sql<{ detail: string }>`explain query plan ${q}`.execute(this.ex)).rows.map((x) => x.detail);
    return [...(await plan(topPriority(r, Number.MAX_SAFE_INTEGER))), ...(await plan(dueOfPriority(r, 0, r.limit)))];
  }

  /** the whole batch is one immediate transaction */
  protected write(batch: readonly PlannedAttempt[]): Promise<Set<number>> {
    return this.inWriteTx(async (tx) => {
      const done = new Set<number>();
      for (const p of batch) {
        const { numAffectedRows } = await sql`update leads
          set status = ${p.to}, attempts = ${p.prev + 1}, claimed_by = null, claimed_at = null, next_attempt_at = ${p.next}
          where seq = ${p.seq} and claimed_by = ${p.worker} and claimed_at = ${p.claimedAt} and status = ${p.from} and attempts = ${p.prev}`.execute(tx);
        if (!numAffectedRows) continue;
        await sql`insert into attempts (lead_id, campaign_id, attempt, started_at, finished_at, success, outcome, phone_number, reason, worker)
          values (${p.leadId}, ${p.campaignId}, ${p.prev + 1}, ${p.startedAt}, ${p.finishedAt}, ${p.success}, ${p.outcome}, ${p.phone}, ${p.reason}, ${p.worker})`.execute(tx);
        done.add(p.seq);
      }
      return done;
    });
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
