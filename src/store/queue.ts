/**
 * The leads table as the dialer uses it, with the attempts that calls write:
 * claims (leases on due leads), attempts opened before a call is placed and
 * closed when its outcome is known, releases, renewals, recycling. Every
 * status written comes from src/leads/lifecycle.ts, and every change appends
 * its events. Implementations: sqlite/queue.ts and postgres/queue.ts over
 * shared/queue.ts.
 *
 * A claim is a lease: claimed_by / claimed_at say who holds the lead and
 * since when, and next_attempt_at holds the lease's expiry. The due index
 * (migration 0002) orders leads by that same due time, so a claimed lead is
 * "not due" until its worker reports back or renews. A held lead is never
 * claimed, whatever its lease: recovery (dialer/recovery.ts) first ends a
 * lapsed lease, closing its call's attempt as unknown, so one attempt is
 * never dialled twice.
 */
import type { LeadDialerColumns, LeadTable } from '../db/schema.js';
import type { LeadStatus } from '../leads/lifecycle.js';

/**
 * The outcome of a call in which the person asked not to be called again
 * (src/dialer/providers/platforms/types.ts): closing an attempt with it lists
 * the number and concludes the lead, whatever `success` says.
 */
export const DO_NOT_CALL = 'do-not-call';

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
  /** the lead's zone set (zones.ts); null when the claim did not check the local window */
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
  /** only leads whose zone set is one of these are taken; null: no local-window check */
  openZones: readonly number[] | null;
  /** the campaign's concurrency: the leads held across every dialer stay at or under it; absent: no cap */
  concurrency?: number;
}

/** an attempt written before its call is placed */
export interface AttemptOpening {
  attemptId: string;
  lead: ClaimedLead;
  /** the number about to be dialled; null when there is none (a failed predial) */
  phoneNumber: string | null;
  startedAt: number;
  /** still open at this instant, it closes as unknown (the campaign's call timeout) */
  deadlineAt: number;
}

/**
 * Not opened, the claim still held and nothing written: 'do-not-call', the
 * number is on the company's list; 'number busy', a call to it is in
 * progress in the company; 'call cap', it is at one of the company's
 * per-number call caps.
 */
export type OpenResult = 'opened' | 'claim lost' | 'gone' | 'do-not-call' | 'number busy' | 'call cap';

/** an attempt's end, and the lead's move it brings (decided by src/dialer/attempts.ts from the lifecycle) */
export interface Closing {
  attemptId: string;
  campaignId: string;
  leadId: string;
  externalId: string | null;
  /** the attempt's number (1 for the lead's first) */
  attempt: number;
  finishedAt: number;
  success: boolean;
  outcome: string;
  reason: string | null;
  durationSeconds: number | null;
  /** false for a call never placed: it spends no attempt */
  counts: boolean;
  /** the lead's move, fenced by the claim the call was made under; null when the lead is gone */
  move: { seq: number; worker: string; claimedAt: number; from: LeadStatus; to: LeadStatus; prev: number; next: string | null } | null;
}

export type AttemptResult =
  | { result: 'recorded'; status: LeadStatus; attempt: number }
  /** the lead was deleted: the attempt is closed, nothing else is written */
  | { result: 'gone' }
  /** the claim lapsed or was released: the attempt is closed, the lead left to its holder */
  | { result: 'claim lost' }
  /** the attempt was closed already (its outcome was reported, or recovery closed it) */
  | { result: 'already closed' };

/** an attempt not closed, with what it takes to close it */
export interface PendingAttempt {
  attemptId: string;
  attempt: number;
  state: 'open' | 'accepted';
  companyId: string;
  campaignId: string;
  leadId: string;
  worker: string;
  claimedAt: number;
  startedAt: number;
  deadlineAt: number | null;
  phoneNumber: string | null;
  providerCallId: string | null;
  providerControl: string | null;
  /** null when the lead was deleted */
  lead: { seq: number; status: LeadStatus; attempts: number; extraAttempts: number; externalId: string | null; held: boolean } | null;
  campaign: { maxAttempts: number; retryDelayMs: number; retryDelays: string; provider: string; callTimeoutMs: number };
}

export type DialerLeadRow = LeadTable & LeadDialerColumns;

export interface QueueStore {
  /** takes up to `limit` due leads (fewer when the campaign's concurrency is reached), best first */
  claim(r: ClaimRequest): Promise<ClaimedLead[]>;
  /**
   * The same, with the slots the campaign had free before it (Infinity
   * without a concurrency; fewer leads than both means nothing more is due),
   * and, when none was free, how many of the held slots await a reported
   * outcome rather than a live call.
   */
  claimFree(r: ClaimRequest): Promise<{ leads: ClaimedLead[]; free: number; awaiting: number }>;
  /** the plan the database picks for a claim, one line per node (EXPLAIN; the statement is not run) */
  claimPlan(r: ClaimRequest): Promise<string[]>;
  /**
   * Gives a claim back without an attempt: the lead gets back the status it
   * had (lifecycle: release), and its due time: the one before the claim, or
   * `until`. `localZones` records the zones learnt since (a prefetch lead's number).
   */
  release(lead: ClaimedLead, o?: { localZones?: number; until?: string; now?: number }): Promise<boolean>;
  /** extends this worker's leases (never shortens one); the seqs it still holds */
  renew(workerId: string, seqs: readonly number[], until: number): Promise<Set<number>>;
  /**
   * Ends a lease at `now` without giving the lead back: its attempt is open and its worker could
   * not record how the call went. Recovery's next sweep closes the attempt as unknown, counted.
   */
  lapse(lead: ClaimedLead, now: number): Promise<void>;
  /** writes each attempt, open, if its claim is still held, its lead still there and its number not on the do-not-call list; one result per opening */
  open(batch: readonly AttemptOpening[], now: number): Promise<OpenResult[]>;
  /** the platform took the call and reports its end later: the attempt and the lead's lease wait until `deadlineAt` */
  accept(attemptId: string, o: { providerCallId: string | null; control?: string | null; deadlineAt: number }): Promise<boolean>;
  /** closes attempts (only those not closed yet) and moves their leads, in one transaction */
  close(batch: readonly Closing[], closedBy: 'dialer' | 'report' | 'timeout' | 'recovery', now: number): Promise<AttemptResult[]>;
  /** one attempt that is not closed, by its id */
  pending(attemptId: string): Promise<PendingAttempt | undefined>;
  /** attempts not closed whose deadline passed or whose worker lost its lease (crashed, stalled) */
  stale(now: number, limit: number): Promise<PendingAttempt[]>;
  /** moves an attempt's deadline (and its lead's lease) to `until`: reconciliation asks again then; false when closed */
  postpone(attemptId: string, until: number): Promise<boolean>;
  /**
   * ends leases that lapsed with no attempt open (of one campaign, or of all): the lead is due again at once.
   * `touched` collects the campaigns of the leads released (a dialer wakes them: its own commits are never signalled to it)
   */
  releaseExpired(now: number, campaignId?: string, touched?: Set<string>): Promise<number>;
  /** the leads the campaign holds right now, across every dialer (calls in flight, outcomes awaited) */
  inFlight(campaignId: string, now: number): Promise<number>;
  /**
   * the earliest instant after `now` at which a claimable lead of the campaign
   * falls due; null when none will. With `now` null, the earliest due time of
   * all (0 for a lead due since it was created): one statement that tells an
   * idle dialer whether anything is due at all.
   */
  nextDue(campaignId: string, now: number | null): Promise<number | null>;
  /**
   * nextDue(id, null) of many campaigns at once, by id: an idle dialer's
   * checks of thousands of campaigns in a few statements, not one each.
   */
  nextDueMany(campaignIds: readonly string[]): Promise<Map<string, number | null>>;
  /**
   * Grants `grant` more attempts to every lead of the campaign that has none
   * left: exhausted leads move back to attempting (lifecycle: recycle). A
   * chunk per write transaction (shared/recycle.ts): a reader may see it
   * half done. The number of leads recycled.
   */
  recycle(campaignId: string, maxAttempts: number, grant: number, now?: number): Promise<number>;
  /** one lead with the dialer's columns, by externalId or phoneNumber (externalId first, as in the API) */
  find(campaignId: string, by: { externalId: string } | { phoneNumber: string }): Promise<DialerLeadRow | undefined>;
  /**
   * Read-only, for the dashboard's Next up: up to `limit` of the campaign's
   * leads the claim may take (raw, attempting), in the order it takes them,
   * whether or not they may be called now. First those due by `now`, in the
   * claim's order (priority high first, due time, creation); then, to fill
   * the limit, those due later, soonest first (then priority, creation).
   * One index range per priority present (the due index, migration 0002).
   */
  upcoming(campaignId: string, now: number, limit: number): Promise<DialerLeadRow[]>;
  /** true when a lead of the campaign has no zone set worked out yet */
  hasUnknownZones(campaignId: string): Promise<boolean>;
  /**
   * Up to `limit` leads whose zones are not worked out (of one campaign, or of
   * all); `skipLocked` lets workers filling at once take different leads.
   */
  withoutZones(o: {
    campaignId?: string;
    limit: number;
    skipLocked?: boolean;
  }): Promise<{ seq: number; phone_number: string | null; metadata: string }[]>;
  /** stores zone set ids on leads still without one */
  setZones(pairs: readonly { seq: number; zoneSet: number }[]): Promise<void>;
}
