/** Claim statements written once for both databases (see queue.ts). */
import { type RawBuilder, sql } from 'kysely';
import type { Db, Executor, WriteTxOptions } from '../../db/index.js';
import { canMove, LEAD_STATUSES, nextStatus } from '../../leads/lifecycle.js';
import type { EventItem, EventStore } from '../events.js';
import type { ClaimedLead, ClaimRequest, DialerLeadRow } from '../queue.js';
import { inFlightCount } from './in-flight.js';
import { recycleInChunks } from './recycle.js';
import { upcoming } from './upcoming.js';

/** The statuses a claim may take; the due index's WHERE names exactly these. */
const CLAIMABLE = LEAD_STATUSES.filter((s) => canMove(s, 'claim'));
export const CLAIMED_STATUS = nextStatus('raw', 'claim');
if (CLAIMABLE.join() !== 'raw,attempting' || CLAIMABLE.some((s) => nextStatus(s, 'claim') !== CLAIMED_STATUS)) {
  // The claim statements (and the partial index) would silently disagree with the table.
  throw new Error('lifecycle.ts changed the claim moves; update the due index and the claim statements');
}

export const iso = (ms: number) => new Date(ms).toISOString();
/** a lead's due column as an instant: '' (no time set) is due since always */
export const dueTime = (d: string | null | undefined): number | null =>
  d === null || d === undefined ? null : d === '' ? 0 : Date.parse(d);

/**
 * Only a lead nobody holds is claimed, however old a lease: a lease that
 * lapsed (its worker crashed or stalled) is ended by recovery first, which
 * closes the call's attempt as unknown, if there was one. A column of the row
 * itself, rather than a look at the attempts: nothing for a planner to misjudge.
 */
export const unheld = sql`claimed_by is null`;

/**
 * The lead's number is not on its company's do-not-call list, so a listed
 * lead is simply not due, and due again once its number is removed. A probe
 * of the list's primary key for each lead the due walk reads: spelt as a
 * scalar subquery because PostgreSQL turns NOT EXISTS into an anti-join, and
 * with a long list it then hashes the whole list and reads the campaign's
 * whole due range instead of walking it in order up to the claim's limit. A
 * lead with no number yet (prefetch) passes; its number is checked right
 * before its call (QueueStore.open). Spelt `(case … end) is not null`: PostgreSQL
 * estimates `(subquery) is null` to hold for 0.5% of rows, which made it expect
 * a handful of due leads and read and sort a priority's whole due range
 * (bench row 7, a million-lead campaign, at a tenth of its speed); `is not
 * null` on an expression it estimates at 99.5%. `campaignId` is a value, or a column of
 * an outer query (one statement over many campaigns).
 */
export const notListed = (campaignId: string | RawBuilder<unknown>) => sql`(case when (select 1 from dnc d
  where d.company_id = (select company_id from campaigns where id = ${campaignId}) and d.phone_number = leads.phone_number limit 1) is null
  then 1 end) is not null`;

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
function claimedLeads(rows: readonly ClaimRow[], r: ClaimRequest): ClaimedLead[] {
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
      attempts: Number(x.attempts),
      maxAttempts: r.maxAttempts + Number(x.extra_attempts),
      claimedBy: r.workerId,
      claimedAt: r.now,
      localZones: x.local_zones === null ? null : Number(x.local_zones),
    }))
    .sort((a, b) => b.priority - a.priority || dueOf(a).localeCompare(dueOf(b)) || a.seq - b.seq);
}

export const statusItem = (leadId: string, externalId: string | null, from: string, to: string): EventItem => ({
  leadId,
  externalId,
  from,
  to,
});

/** awaiting()'s statement (a test reads its plan) */
export const awaitingCount = (ex: Executor, campaignId: string) =>
  ex
    .selectFrom('attempts')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('campaign_id', '=', campaignId)
    // literals: the partial index attempts_pending (migration 0024) matches them in any plan, a generic one too;
    // SQLite uses it only when its condition is written out
    .where('state', '<>', sql.lit('closed'))
    .where('state', '=', sql.lit('accepted'));

/**
 * A claim's transaction: the campaign's claims queue behind each other, and
 * its counts of the slots taken read their small indexes by plain scans (a test
 * reads the plans it gets)
 */
export const claimTxOptions = (campaignId: string): WriteTxOptions => ({ lock: `claim:${campaignId}`, plainIndexScans: true });

/**
 * Claims and the leads they hold: the half of the queue that does not
 * write attempts (queue.ts is the other half).
 */
export abstract class SharedClaimStore {
  constructor(
    protected readonly db: Db,
    /** the executor this store runs on: the database, or a transaction of it */
    protected readonly ex: Executor,
    protected readonly events: EventStore,
  ) {}

  /** this store on another executor (a transaction of the same database) */
  protected abstract on(ex: Executor): SharedClaimStore;
  /** the claim statement(s), in the transaction `claim` opened; `r.limit` already counts the free slots */
  protected abstract claimRows(r: ClaimRequest): Promise<ClaimRow[]>;
  /**
   * The claim and opening statements write their own events (PostgreSQL: claimRows the claim's
   * lead.status_changed, openRows the attempt.started of the calls it opens)
   */
  protected readonly statementsWriteEvents: boolean = false;
  abstract claimPlan(r: ClaimRequest): Promise<string[]>;
  abstract nextDue(campaignId: string, now: number | null): Promise<number | null>;
  /** nextDue(id, null) of each campaign; one statement each here (in-process SQLite), one for all on PostgreSQL */
  async nextDueMany(campaignIds: readonly string[]): Promise<Map<string, number | null>> {
    const firsts = new Map<string, number | null>();
    for (const id of campaignIds) firsts.set(id, await this.nextDue(id, null));
    return firsts;
  }
  abstract withoutZones(o: {
    campaignId?: string;
    limit: number;
    skipLocked?: boolean;
  }): Promise<{ seq: number; phone_number: string | null; metadata: string }[]>;
  abstract setZones(pairs: readonly { seq: number; zoneSet: number }[]): Promise<void>;
  /** `seq` is one of seqs, bound as one parameter */
  protected abstract inSeqs(seqs: readonly number[]): RawBuilder<unknown>;

  /** fn in a write transaction: this store's own, or a new one (Db.writeTx's options; bounded unless `bounded: false`) */
  protected inWriteTx<T>(fn: (self: this) => Promise<T>, o: WriteTxOptions = {}): Promise<T> {
    return this.ex === this.db.kysely ? this.db.writeTx((tx) => fn(this.on(tx) as this), { bounded: true, ...o }) : fn(this);
  }

  /**
   * The campaign's claims queue behind each other (an advisory lock on
   * PostgreSQL, the single writer on SQLite), so that the count of leads held
   * and the claim that fills the free slots see the same state: dialers
   * together never hold more than the campaign's concurrency.
   */
  async claim(r: ClaimRequest): Promise<ClaimedLead[]> {
    return (await this.claimFree(r)).leads;
  }

  claimFree(r: ClaimRequest): Promise<{ leads: ClaimedLead[]; free: number; awaiting: number }> {
    if (r.limit < 1 || r.openZones?.length === 0) return Promise.resolve({ leads: [], free: r.limit, awaiting: 0 });
    return this.inWriteTx(async (self) => {
      const free = r.concurrency === undefined ? Number.POSITIVE_INFINITY : r.concurrency - (await self.inFlight(r.campaignId, r.now));
      const limit = Math.min(r.limit, free);
      if (limit < 1) return { leads: [], free: Math.max(0, free), awaiting: await self.awaiting(r.campaignId) };
      const leads = claimedLeads(await self.claimRows({ ...r, limit }), r);
      if (self.statementsWriteEvents) return { leads, free, awaiting: 0 };
      const started = leads.filter((l) => l.previousStatus !== CLAIMED_STATUS);
      const items = started.map((l) => statusItem(l.id, l.externalId, l.previousStatus, CLAIMED_STATUS));
      await self.events.append({ type: 'lead.status_changed', campaignId: r.campaignId, items, now: r.now });
      return { leads, free, awaiting: 0 };
    }, claimTxOptions(r.campaignId));
  }

  /** the campaign's calls whose outcome is awaited (taken by a provider for later): slots no live call of a dialer holds */
  async awaiting(campaignId: string): Promise<number> {
    const row = await awaitingCount(this.ex, campaignId).executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  inFlight(campaignId: string, now: number): Promise<number> {
    return inFlightCount(this.db, this.ex, campaignId, now);
  }

  release(lead: ClaimedLead, o: { localZones?: number; until?: string; now?: number } = {}): Promise<boolean> {
    const status = nextStatus(nextStatus(lead.previousStatus, 'claim'), 'release', { claimedFrom: lead.previousStatus });
    return this.inWriteTx(async (self) => {
      const zones = o.localZones === undefined ? sql`` : sql`, local_zones = ${o.localZones}`;
      const { numAffectedRows } = await sql`update leads
        set status = ${status}, claimed_by = null, claimed_at = null, next_attempt_at = ${o.until ?? lead.previousNextAttemptAt} ${zones}
        where seq = ${lead.seq} and claimed_by = ${lead.claimedBy} and claimed_at = ${lead.claimedAt}`.execute(self.ex);
      const released = Boolean(numAffectedRows);
      if (released && status !== CLAIMED_STATUS) {
        const items = [statusItem(lead.id, lead.externalId, CLAIMED_STATUS, status)];
        await self.events.append({ type: 'lead.status_changed', campaignId: lead.campaignId, items, now: o.now ?? Date.now() });
      }
      return released;
    });
  }

  // Never shortens a lease: one landing after accept() (held to the call timeout) would let recovery close the call as
  // unknown. A held lead's next_attempt_at is iso()'s fixed-width UTC text, so text order is time order.
  async renew(workerId: string, seqs: readonly number[], until: number): Promise<Set<number>> {
    if (seqs.length === 0) return new Set();
    const { rows } = await sql<{ seq: number }>`update leads
      set next_attempt_at = case when next_attempt_at > ${iso(until)} then next_attempt_at else ${iso(until)} end
      where ${this.inSeqs(seqs)} and claimed_by = ${workerId} returning seq`.execute(this.ex);
    return new Set(rows.map((r) => Number(r.seq)));
  }

  /**
   * Ends the leases that lapsed with no attempt open (a worker that died
   * between its claim and its call): the lead is due again at once, with the
   * status the claim found (raw when it had no attempt yet). The leads held
   * are few, so this reads the small leads_claimed index.
   */
  releaseExpired(now: number, campaignId?: string, touched?: Set<string>): Promise<number> {
    const raw = nextStatus(CLAIMED_STATUS, 'release', { claimedFrom: 'raw' });
    return this.inWriteTx(async (self) => {
      const { rows } = await sql<{ id: string; campaign_id: string; external_id: string | null; was_raw: number | boolean }>`
        update leads set status = case when attempts = 0 then ${raw} else status end,
          claimed_by = null, claimed_at = null, next_attempt_at = null
        where claimed_by is not null and next_attempt_at < ${iso(now)} ${campaignId === undefined ? sql`` : sql`and campaign_id = ${campaignId}`}
          and not exists (select 1 from attempts a where a.lead_id = leads.id and a.state <> 'closed')
        returning id, campaign_id, external_id, (attempts = 0) as was_raw`.execute(self.ex);
      for (const r of rows) touched?.add(r.campaign_id);
      const released = rows.filter((r) => Boolean(r.was_raw));
      const byCampaign = new Map<string, EventItem[]>();
      for (const r of released)
        byCampaign.set(r.campaign_id, [...(byCampaign.get(r.campaign_id) ?? []), statusItem(r.id, r.external_id, CLAIMED_STATUS, raw)]);
      for (const [campaignId, items] of byCampaign) await self.events.append({ type: 'lead.status_changed', campaignId, items, now });
      return rows.length;
    });
  }

  /** chunk by chunk, each in a write transaction of its own (recycle.ts says why) */
  recycle(campaignId: string, maxAttempts: number, grant: number, now = Date.now()): Promise<number> {
    return recycleInChunks((chunk) => this.inWriteTx((self) => chunk(self.ex, self.events), { bounded: false }), {
      campaignId,
      maxAttempts,
      grant,
      now,
    });
  }

  find(campaignId: string, by: { externalId: string } | { phoneNumber: string }): Promise<DialerLeadRow | undefined> {
    return this.ex
      .selectFrom('leads')
      .selectAll()
      .where('campaign_id', '=', campaignId)
      .where((eb) => ('externalId' in by ? eb('external_id', '=', by.externalId) : eb('phone_number', '=', by.phoneNumber)))
      .executeTakeFirst() as Promise<DialerLeadRow | undefined>;
  }

  /** the due time as the due index spells it (migration 0002) */
  protected abstract readonly due: RawBuilder<unknown>;

  upcoming(campaignId: string, now: number, limit: number): Promise<DialerLeadRow[]> {
    return upcoming(this.ex, this.due, campaignId, now, limit);
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

export function groupBy<T, K>(items: readonly T[], key: (t: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const item of items) {
    const k = key(item);
    const group = groups.get(k);
    if (group) group.push(item);
    else groups.set(k, [item]);
  }
  return groups;
}
