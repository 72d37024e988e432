/** Queue statements written once for both databases; the dialect classes extend this. */
import { type RawBuilder, sql } from 'kysely';
import type { Db, Executor } from '../../db/index.js';
import { canMove, LEAD_STATUSES, nextStatus } from '../../leads/lifecycle.js';
import type { AttemptResult, ClaimedLead, ClaimRequest, DialerLeadRow, PlannedAttempt, QueueStore } from '../queue.js';

/** The statuses a claim may take; the due index's WHERE names exactly these. */
const CLAIMABLE = LEAD_STATUSES.filter((s) => canMove(s, 'claim'));
export const CLAIMED_STATUS = nextStatus('raw', 'claim');
if (CLAIMABLE.join() !== 'raw,attempting' || CLAIMABLE.some((s) => nextStatus(s, 'claim') !== CLAIMED_STATUS)) {
  // The claim statements (and the partial index) would silently disagree with the table.
  throw new Error('lifecycle.ts changed the claim moves; update the due index and the claim statements');
}

export const iso = (ms: number) => new Date(ms).toISOString();

/** the claim is still this worker's: fencing for every write after the call */
const holds = (l: ClaimedLead) => sql`seq = ${l.seq} and claimed_by = ${l.claimedBy} and claimed_at = ${l.claimedAt}`;

/** a claimed row as both claim statements return it */
export interface ClaimRow {
  seq: number;
  id: string;
  campaign_id: string;
  phone_number: string | null;
  external_id: string | null;
  metadata: string;
  priority: number;
  scheduled_for: string | null;
  prev_status: ClaimedLead['previousStatus'];
  prev_next: string | null;
  attempts: number;
  extra_attempts: number;
  local_zones: number | null;
}

const dueOf = (l: ClaimedLead) => l.previousNextAttemptAt ?? l.scheduledFor ?? '';

/** claimed rows as leads, best first: priority, due time, creation */
export function claimedLeads(rows: readonly ClaimRow[], r: ClaimRequest): ClaimedLead[] {
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

export abstract class SharedQueueStore implements QueueStore {
  constructor(
    protected readonly db: Db,
    /** the executor this store runs on: the database, or a transaction of it */
    protected readonly ex: Executor,
  ) {}

  /** runs fn in a write transaction: this store's own, or a new one when it runs on the database */
  protected inWriteTx<T>(fn: (ex: Executor) => Promise<T>): Promise<T> {
    return this.ex === this.db.kysely ? this.db.writeTx(fn) : fn(this.ex);
  }

  /** runs a single autocommit statement again when it loses a deadlock; inside a transaction, the transaction's caller decides */
  protected retrying<T>(fn: () => Promise<T>): Promise<T> {
    return this.ex === this.db.kysely ? this.db.retrying(fn) : fn();
  }

  abstract claim(r: ClaimRequest): Promise<ClaimedLead[]>;
  abstract claimPlan(r: ClaimRequest): Promise<string[]>;
  abstract withoutZones(o: { campaignId?: string; limit: number; skipLocked?: boolean }): Promise<{ seq: number; phone_number: string | null; metadata: string }[]>;
  abstract setZones(pairs: readonly { seq: number; zoneSet: number }[]): Promise<void>;
  /** the seqs of the leads that moved (their attempt rows are written) */
  protected abstract write(batch: readonly PlannedAttempt[]): Promise<Set<number>>;
  /** `seq` is one of seqs, bound as one parameter */
  protected abstract inSeqs(seqs: readonly number[]): RawBuilder<unknown>;

  async release(lead: ClaimedLead, o: { localZones?: number } = {}): Promise<boolean> {
    const status = nextStatus(nextStatus(lead.previousStatus, 'claim'), 'release', { claimedFrom: lead.previousStatus });
    const zones = o.localZones === undefined ? sql`` : sql`, local_zones = ${o.localZones}`;
    const { numAffectedRows } = await sql`update leads
      set status = ${status}, claimed_by = null, claimed_at = null, next_attempt_at = ${lead.previousNextAttemptAt} ${zones}
      where ${holds(lead)}`.execute(this.ex);
    return Boolean(numAffectedRows);
  }

  async renew(workerId: string, seqs: readonly number[], until: number): Promise<number> {
    if (seqs.length === 0) return 0;
    const { numAffectedRows } = await sql`update leads set next_attempt_at = ${iso(until)}
      where ${this.inSeqs(seqs)} and claimed_by = ${workerId}`.execute(this.ex);
    return Number(numAffectedRows ?? 0);
  }

  async record(batch: readonly PlannedAttempt[]): Promise<AttemptResult[]> {
    if (batch.length === 0) return [];
    const recorded = await this.write(batch);
    const missing = batch.filter((p) => !recorded.has(p.seq)).map((p) => p.seq);
    const present = new Set<number>();
    if (missing.length > 0) {
      const rows = await this.ex.selectFrom('leads').select('seq').where('seq', 'in', missing).execute();
      for (const r of rows) present.add(Number(r.seq));
    }
    return batch.map((p) =>
      recorded.has(p.seq) ? { result: 'recorded', status: p.to, attempt: p.prev + 1 } : present.has(p.seq) ? { result: 'claim lost' } : { result: 'gone' },
    );
  }

  /** leads still attempting but out of attempts because max_attempts was lowered just get the attempts */
  async recycle(campaignId: string, maxAttempts: number, grant: number): Promise<number> {
    const recycled = nextStatus('exhausted', 'recycle');
    const { numAffectedRows } = await sql`update leads
      set status = case when status = 'exhausted' then ${recycled} else status end,
          extra_attempts = attempts + ${grant} - ${maxAttempts}, next_attempt_at = null
      where campaign_id = ${campaignId}
        and (status = 'exhausted' or (status = 'attempting' and claimed_by is null and attempts >= ${maxAttempts} + extra_attempts))`.execute(
      this.ex,
    );
    return Number(numAffectedRows ?? 0);
  }

  find(campaignId: string, by: { externalId: string } | { phoneNumber: string }): Promise<DialerLeadRow | undefined> {
    return this.ex
      .selectFrom('leads')
      .selectAll()
      .where('campaign_id', '=', campaignId)
      .where((eb) => ('externalId' in by ? eb('external_id', '=', by.externalId) : eb('phone_number', '=', by.phoneNumber)))
      .executeTakeFirst() as Promise<DialerLeadRow | undefined>;
  }

  async hasUnknownZones(campaignId: string): Promise<boolean> {
    const row = await this.ex
      .selectFrom('leads')
      .select('seq')
      .where('campaign_id', '=', campaignId)
      .where('local_zones', 'is', null)
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }
}
