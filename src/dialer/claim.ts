/**
 * Claiming due leads: the store's claim, given the zone sets inside the
 * campaign's local window right now (local-zones.ts), so that leads outside
 * it are left alone rather than claimed and given back.
 */
import type { ClosedDates } from '../scheduling/closed-dates.js';
import type { WeeklyHours } from '../scheduling/hours.js';
import type { Store } from '../store/index.js';
import type { ClaimedLead, ClaimRequest } from '../store/queue.js';
import { alwaysOpen, fillCampaignZones, openZoneSets } from './local-zones.js';

export interface DueClaim extends Omit<ClaimRequest, 'openZones'> {
  /**
   * The campaign's local window: only leads whose called person is inside it
   * now are taken, and (closed) only those for whom today is not a closed
   * date. Absent, or open around the clock with no closed dates: no check.
   */
  local?: { window: WeeklyHours; windowSpec: string; timezone: string; closed?: ClosedDates | null };
}

/**
 * The zone sets inside the campaign's local window now, or null when the
 * window is open around the clock (no check). Leads whose zones are not
 * worked out yet are filled first, so none waits for another round.
 */
async function openZones(store: Store, r: DueClaim): Promise<number[] | null> {
  if (!r.local || (alwaysOpen(r.local.window) && !r.local.closed)) return null;
  if (await store.queue.hasUnknownZones(r.campaignId)) await fillCampaignZones(store, r.campaignId);
  return openZoneSets(store, r.local.window, r.local.windowSpec, r.local.timezone, r.now, r.local.closed);
}

/** Takes up to `limit` due leads, best first: priority (high first), then due time, then creation. */
export async function claimDue(store: Store, r: DueClaim): Promise<ClaimedLead[]> {
  return (await claimDueFree(store, r)).leads;
}

/** claimDue, and the campaign's free slots before it (see QueueStore.claimFree) */
export async function claimDueFree(store: Store, r: DueClaim): Promise<{ leads: ClaimedLead[]; free: number; awaiting: number }> {
  if (r.limit < 1) return { leads: [], free: 0, awaiting: 0 };
  const { local: _, ...request } = r;
  return store.queue.claimFree({ ...request, openZones: await openZones(store, r) });
}

/** The plan the database picks for a claim, one line per node (the statement is not run). */
export async function claimPlan(store: Store, r: DueClaim): Promise<string[]> {
  const { local: _, ...request } = r;
  return store.queue.claimPlan({ ...request, openZones: await openZones(store, r) });
}
