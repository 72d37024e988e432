/**
 * The dialer's other SQL: releasing and renewing claims, recycling, and the
 * lookups of campaigns and leads. Claims are in claim-repository.ts and
 * attempts in attempt-repository.ts; every status written comes from
 * lifecycle.ts.
 */
import { sql } from 'kysely';
import type { Db, Executor } from '../db/index.js';
import { type ClaimedLead, inSeqs, iso } from './claim-repository.js';
import { nextStatus } from './lifecycle.js';

export { type ClaimedLead, type ClaimRequest, claimDue, claimPlan } from './claim-repository.js';

/** the claim is still this worker's: fencing for every write after the call */
const holds = (l: ClaimedLead) => sql`seq = ${l.seq} and claimed_by = ${l.claimedBy} and claimed_at = ${l.claimedAt}`;

/**
 * Gives a claim back without an attempt, undoing it: the lead gets back the
 * status (lifecycle: release) and the due time it had before the claim, and
 * no claim. `localZones` (a zone_sets id) records the called person's zones
 * learnt since the claim (a prefetch lead's number), so that the claim leaves
 * the lead alone until their local window opens.
 */
export async function releaseClaim(db: Db, lead: ClaimedLead, o: { localZones?: number } = {}): Promise<boolean> {
  const status = nextStatus(nextStatus(lead.previousStatus, 'claim'), 'release', { claimedFrom: lead.previousStatus });
  const zones = o.localZones === undefined ? sql`` : sql`, local_zones = ${o.localZones}`;
  const { numAffectedRows } = await sql`update leads
    set status = ${status}, claimed_by = null, claimed_at = null, next_attempt_at = ${lead.previousNextAttemptAt} ${zones}
    where ${holds(lead)}`.execute(db.kysely);
  return Boolean(numAffectedRows);
}

/** Extends the leases of this worker's calls still in flight; returns how many it still holds. */
export async function renewClaims(db: Db, workerId: string, seqs: readonly number[], until: number): Promise<number> {
  if (seqs.length === 0) return 0;
  const { numAffectedRows } = await sql`update leads set next_attempt_at = ${iso(until)}
    where ${inSeqs(db.dialect, seqs)} and claimed_by = ${workerId}`.execute(db.kysely);
  return Number(numAffectedRows ?? 0);
}

/**
 * Grants `grant` more attempts to every lead of the campaign that has none
 * left: exhausted leads move back to attempting (lifecycle: recycle); leads
 * still attempting but out of attempts because max_attempts was lowered just
 * get the attempts. Recycled leads are due at once, in their original order.
 */
export async function recycleLeads(db: Db, campaignId: string, maxAttempts: number, grant: number): Promise<number> {
  const recycled = nextStatus('exhausted', 'recycle');
  const { numAffectedRows } = await sql`update leads
    set status = case when status = 'exhausted' then ${recycled} else status end,
        extra_attempts = attempts + ${grant} - ${maxAttempts}, next_attempt_at = null
    where campaign_id = ${campaignId}
      and (status = 'exhausted' or (status = 'attempting' and claimed_by is null and attempts >= ${maxAttempts} + extra_attempts))`.execute(
    db.kysely,
  );
  return Number(numAffectedRows ?? 0);
}

export type CampaignRow = Awaited<ReturnType<typeof loadCampaigns>>[number];

/** The campaigns a worker serves: the given ones, or all of them. */
export function loadCampaigns(ex: Executor, ids: readonly string[] | null) {
  let q = ex.selectFrom('campaigns').selectAll().orderBy('created_at').orderBy('id');
  if (ids) q = q.where('id', 'in', ids.length > 0 ? ids : ['']);
  return q.execute();
}

/** One lead with the dialer's columns, by externalId or phoneNumber (externalId first, as in the API). */
export function findLead(ex: Executor, campaignId: string, by: { externalId: string } | { phoneNumber: string }) {
  return ex
    .selectFrom('leads')
    .selectAll()
    .where('campaign_id', '=', campaignId)
    .where((eb) => ('externalId' in by ? eb('external_id', '=', by.externalId) : eb('phone_number', '=', by.phoneNumber)))
    .executeTakeFirst();
}
