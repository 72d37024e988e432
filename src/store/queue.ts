/**
 * The leads table as the dialer uses it: claims (leases on due leads),
 * their release and renewal, attempts recorded against them, recycling.
 * Every status written comes from src/leads/lifecycle.ts. Implementations:
 * sqlite/queue.ts and postgres/queue.ts over shared/queue.ts.
 *
 * A claim is a lease: claimed_by / claimed_at say who holds the lead and
 * since when, and next_attempt_at holds the lease's expiry. The due index
 * (migration 0002) orders leads by that same due time, so a claimed lead is
 * simply "not due" until its worker reports back or renews, and when a
 * worker dies its leads fall due again at expiry: no sweeper is needed.
 */
import type { LeadStatus } from '../leads/lifecycle.js';
import type { LeadTable, LeadDialerColumns } from '../db/schema.js';

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
}

/** One attempt, its move already decided (src/dialer/attempts.ts); the columns of the batch statement. */
export interface PlannedAttempt {
  seq: number;
  leadId: string;
  campaignId: string;
  worker: string;
  claimedAt: number;
  from: LeadStatus;
  to: LeadStatus;
  /** attempts before this one; the number of this one is prev + 1 */
  prev: number;
  next: string | null;
  startedAt: number;
  finishedAt: number;
  success: number;
  outcome: string;
  phone: string | null;
  reason: string | null;
}

export type AttemptResult =
  | { result: 'recorded'; status: LeadStatus; attempt: number }
  /** the lead was deleted during the call: nothing is written, nothing resurrected */
  | { result: 'gone' }
  /** the claim lapsed and was taken over, or was released: its holder writes */
  | { result: 'claim lost' };

export type DialerLeadRow = LeadTable & LeadDialerColumns;

export interface QueueStore {
  /**
   * Takes up to `limit` due leads, best first: priority (high first), then
   * due time (scheduledFor, or the retry time), then creation.
   */
  claim(r: ClaimRequest): Promise<ClaimedLead[]>;
  /** the plan the database picks for a claim, one line per node (EXPLAIN; the statement is not run) */
  claimPlan(r: ClaimRequest): Promise<string[]>;
  /**
   * Gives a claim back without an attempt: the lead gets back the status
   * (lifecycle: release) and the due time it had before the claim. `localZones`
   * records the called person's zones learnt since (a prefetch lead's number).
   */
  release(lead: ClaimedLead, o?: { localZones?: number }): Promise<boolean>;
  /** extends the leases of this worker's calls in flight; how many it still holds */
  renew(workerId: string, seqs: readonly number[], until: number): Promise<number>;
  /** writes a batch; a lead moves, and its attempt row is written, only while the claim is the call's */
  record(batch: readonly PlannedAttempt[]): Promise<AttemptResult[]>;
  /**
   * Grants `grant` more attempts to every lead of the campaign that has none
   * left: exhausted leads move back to attempting (lifecycle: recycle). The
   * number of leads recycled.
   */
  recycle(campaignId: string, maxAttempts: number, grant: number): Promise<number>;
  /** one lead with the dialer's columns, by externalId or phoneNumber (externalId first, as in the API) */
  find(campaignId: string, by: { externalId: string } | { phoneNumber: string }): Promise<DialerLeadRow | undefined>;
  /** true when a lead of the campaign has no zone set worked out yet */
  hasUnknownZones(campaignId: string): Promise<boolean>;
  /**
   * Up to `limit` leads whose zones are not worked out (of one campaign, or of
   * all); `skipLocked` lets workers filling at once take different leads.
   */
  withoutZones(o: { campaignId?: string; limit: number; skipLocked?: boolean }): Promise<{ seq: number; phone_number: string | null; metadata: string }[]>;
  /** stores zone set ids on leads still without one */
  setZones(pairs: readonly { seq: number; zoneSet: number }[]): Promise<void>;
}
