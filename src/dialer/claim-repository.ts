/**
 * Claiming due leads: the dialer's hottest statement. Every status it writes
 * comes from lifecycle.ts.
 *
 * A claim is a lease: claimed_by / claimed_at say who holds the lead and
 * since when, and next_attempt_at holds the lease's expiry. The due index
 * (migration 0002) orders leads by that same due time, so a claimed lead
 * is simply "not due" until its worker reports back or renews, and when a
 * worker dies its leads fall due again at expiry: no sweeper is needed.
 */
import { type RawBuilder, sql } from 'kysely';
import type { Db, Dialect } from '../db/index.js';
import type { WeeklyHours } from './hours.js';
import { LEAD_STATUSES, type LeadStatus, canMove, nextStatus } from './lifecycle.js';
import { alwaysOpen, fillCampaignZones, openZoneSets } from './local-zones.js';

/** The statuses a claim may take; the due index's WHERE names exactly these. */
const CLAIMABLE = LEAD_STATUSES.filter((s) => canMove(s, 'claim'));
const CLAIMED_STATUS = nextStatus('raw', 'claim');
if (CLAIMABLE.join() !== 'raw,attempting' || CLAIMABLE.some((s) => nextStatus(s, 'claim') !== CLAIMED_STATUS)) {
  // The SQL below (and the partial index) would silently disagree with the table.
  throw new Error('lifecycle.ts changed the claim moves; update the due index and claimDue');
}

export interface ClaimedLead {
  seq: number;
  id: string;
  campaignId: string;
  phoneNumber: string | null;
  externalId: string | null;
  /** JSON text */
  metadata: string;
  priority: number;
  scheduledFor: string | null;
  /** status and next_attempt_at before the claim (a release restores the latter) */
  previousStatus: LeadStatus;
  previousNextAttemptAt: string | null;
  /** attempts made before this one */
  attempts: number;
  /** the campaign's max_attempts plus the lead's recycled extra attempts */
  maxAttempts: number;
  claimedBy: string;
  claimedAt: number;
  /** the lead's zone set (local-zones.ts); null when the claim did not check the local window */
  localZones: number | null;
}

export interface ClaimRequest {
  campaignId: string;
  /** the campaign's max_attempts */
  maxAttempts: number;
  workerId: string;
  limit: number;
  now: number;
  /** leads due at or before this instant (ms) are taken; default now */
  dueBy?: number;
  leaseMs: number;
  /**
   * The campaign's local window: only leads whose called person is inside it
   * now are taken (local-zones.ts). Absent, or open around the clock: no check.
   */
  local?: { window: WeeklyHours; windowSpec: string; timezone: string };
}

export const iso = (ms: number) => new Date(ms).toISOString();

/** the due time, exactly as the index expression spells it */
const dueKey = (dialect: Dialect) =>
  dialect === 'postgres'
    ? sql`coalesce(next_attempt_at, scheduled_for, '') collate "C"`
    : sql`coalesce(next_attempt_at, scheduled_for, '')`;

export function inSeqs(dialect: Dialect, seqs: readonly number[]): RawBuilder<unknown> {
  return dialect === 'postgres' ? sql`seq = any(${seqs}::bigint[])` : sql`seq in (select value from json_each(${JSON.stringify(seqs)}))`;
}

interface ClaimRow {
  seq: number;
  id: string;
  campaign_id: string;
  phone_number: string | null;
  external_id: string | null;
  metadata: string;
  priority: number;
  scheduled_for: string | null;
  prev_status: LeadStatus;
  prev_next: string | null;
  attempts: number;
  extra_attempts: number;
  local_zones: number | null;
}

/**
 * Takes up to `limit` due leads, best first: priority (high first), then
 * due time (scheduledFor, or the retry time), then creation.
 *
 * "Highest priority first, among due leads" is not one index range: a plain
 * ORDER BY priority DESC would wade through every not-yet-due lead of a
 * higher priority (a retry wave, a batch scheduled for tomorrow) on every
 * claim. So it walks the priorities present (a loose index scan: one index
 * probe per distinct priority, at most 101) and, for each, reads the due
 * range of (campaign, priority, due time, seq) from its start. The walk is
 * lazy: it stops at the first priorities that fill the limit.
 */
export async function claimDue(db: Db, r: ClaimRequest): Promise<ClaimedLead[]> {
  if (r.limit < 1) return [];
  const zones = await openZones(db, r);
  if (zones?.length === 0) return [];
  let rows: ClaimRow[];
  if (db.dialect === 'postgres') {
    // One statement: SKIP LOCKED passes over rows another worker is claiming
    // this instant, and a row that worker has just committed is re-checked
    // against the WHERE clause (its due time is now its lease), so two
    // workers never take the same lead.
    ({ rows } = await pgClaim(r, zones).execute(db.kysely));
  } else {
    // SQLite has one writer at a time: BEGIN IMMEDIATE makes the read and the
    // update one atomic step. The same priority walk, one statement per step.
    rows = await db.writeTx(async (tx) => {
      const picked: ClaimRow[] = [];
      let below = Number.MAX_SAFE_INTEGER;
      while (picked.length < r.limit) {
        const p = (await sqliteTopPriority(r, below).execute(tx)).rows[0]?.p;
        if (p === null || p === undefined) break;
        picked.push(...(await sqliteDue(r, zones, p, r.limit - picked.length).execute(tx)).rows);
        below = p;
      }
      if (picked.length > 0) {
        await sql`update leads
          set status = ${CLAIMED_STATUS}, claimed_by = ${r.workerId}, claimed_at = ${r.now}, next_attempt_at = ${iso(r.now + r.leaseMs)}
          where ${inSeqs('sqlite', picked.map((x) => x.seq))}`.execute(tx);
      }
      return picked;
    });
  }
  return rows
    .map((x) => ({
      seq: Number(x.seq),
      id: x.id,
      campaignId: x.campaign_id,
      phoneNumber: x.phone_number,
      externalId: x.external_id,
      metadata: x.metadata,
      priority: x.priority,
      scheduledFor: x.scheduled_for,
      previousStatus: x.prev_status,
      previousNextAttemptAt: x.prev_next,
      attempts: x.attempts,
      maxAttempts: r.maxAttempts + x.extra_attempts,
      claimedBy: r.workerId,
      claimedAt: r.now,
      localZones: x.local_zones === null ? null : Number(x.local_zones),
    }))
    .sort((a, b) => b.priority - a.priority || dueOf(a).localeCompare(dueOf(b)) || a.seq - b.seq);
}

const dueOf = (l: ClaimedLead) => l.previousNextAttemptAt ?? l.scheduledFor ?? '';

/**
 * The zone sets inside the campaign's local window now, or null when the
 * window is open around the clock (no check). Leads whose zones are not
 * worked out yet are filled first, so none waits for another round.
 */
async function openZones(db: Db, r: ClaimRequest): Promise<number[] | null> {
  if (!r.local || alwaysOpen(r.local.window)) return null;
  const unknown = await db.kysely
    .selectFrom('leads')
    .select('seq')
    .where('campaign_id', '=', r.campaignId)
    .where('local_zones', 'is', null)
    .limit(1)
    .executeTakeFirst();
  if (unknown) await fillCampaignZones(db, r.campaignId);
  return openZoneSets(db, r.local.window, r.local.windowSpec, r.local.timezone, r.now);
}

/**
 * The local window condition (see openZones): the lead's zone set is one of
 * the open ones. It is checked on each row the walk reads, like attempts.
 * On PostgreSQL it is spelt so that the planner cannot estimate it from the
 * column's statistics (which know nothing of the window, and right after
 * leads are added see only NULLs): `local_zones = any(...)` estimated at one
 * row would make it read and sort a priority's whole due range instead of
 * walking it in order; `array_position(...) is not null` is taken to hold for
 * nearly every row, which is what a campaign mostly sees.
 */
const inZones = (dialect: Dialect, zones: readonly number[] | null) =>
  zones === null
    ? sql``
    : dialect === 'postgres'
      ? sql`and array_position(${zones}::int[], local_zones) is not null`
      : sql`and local_zones in (select value from json_each(${JSON.stringify(zones)}))`;

/** The PostgreSQL claim statement (see claimDue), also for EXPLAIN. */
function pgClaim(r: ClaimRequest, zones: readonly number[] | null) {
  const due = dueKey('postgres');
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
            and ${due} <= ${dueBy} and attempts < ${r.maxAttempts} + extra_attempts ${inZones('postgres', zones)}
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

/** SQLite: the highest priority below `below` among the campaign's claimable leads */
const sqliteTopPriority = (r: ClaimRequest, below: number) => sql<{ p: number | null }>`
  select max(priority) as p from leads
  where campaign_id = ${r.campaignId} and status in ('raw', 'attempting') and priority < ${below}`;

/**
 * SQLite: the due leads of one priority, best first. The limit is bound as
 * `? + 0`: a bare `LIMIT ?` informs SQLite's plan, so every new value would
 * re-prepare the statement (BENCHMARKS.md item 10).
 */
const sqliteDue = (r: ClaimRequest, zones: readonly number[] | null, priority: number, limit: number) => sql<ClaimRow>`
  select seq, id, campaign_id, phone_number, external_id, metadata, priority, scheduled_for,
    status as prev_status, next_attempt_at as prev_next, attempts, extra_attempts, local_zones
  from leads
  where campaign_id = ${r.campaignId} and status in ('raw', 'attempting') and priority = ${priority}
    and ${dueKey('sqlite')} <= ${iso(r.dueBy ?? r.now)} and attempts < ${r.maxAttempts} + extra_attempts ${inZones('sqlite', zones)}
  order by ${dueKey('sqlite')}, seq
  limit ${limit} + 0`;

/**
 * The plan the database picks for a claim, one line per node: EXPLAIN of the
 * PostgreSQL statement (it is not run), EXPLAIN QUERY PLAN of SQLite's two.
 */
export async function claimPlan(db: Db, r: ClaimRequest): Promise<string[]> {
  const zones = await openZones(db, r);
  if (db.dialect === 'postgres') {
    const { rows } = await sql<{ 'QUERY PLAN': string }>`explain ${pgClaim(r, zones)}`.execute(db.kysely);
    return rows.map((x) => x['QUERY PLAN']);
  }
  const plan = async (q: RawBuilder<unknown>) =>
    (await sql<{ detail: string }>`explain query plan ${q}`.execute(db.kysely)).rows.map((x) => x.detail);
  return [...(await plan(sqliteTopPriority(r, Number.MAX_SAFE_INTEGER))), ...(await plan(sqliteDue(r, zones, 0, r.limit)))];
}
