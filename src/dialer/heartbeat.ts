/** Each running dialer says it is alive (the dialers table), so that `leadline dialer status` and the dashboard can tell. */
import { hostname } from 'node:os';
import { DIALER_LIVE_MS, type DialerRow } from '../store/dialers.js';
import type { Store } from '../store/index.js';

/** rows of dialers that stopped without saying so (killed) are forgotten after this */
const FORGET_AFTER_MS = 3_600_000;

export interface Beat {
  id: string;
  campaignIds: readonly string[] | null;
  startedAt: number;
  now: number;
  callsInFlight: number;
  lastClaimAt: number | null;
}

export async function heartbeat(store: Store, b: Beat): Promise<void> {
  await store.dialers.beat({
    id: b.id,
    host: hostname(),
    pid: process.pid,
    campaigns: b.campaignIds ? b.campaignIds.join(',') : 'all',
    started_at: b.startedAt,
    heartbeat_at: b.now,
    calls_in_flight: b.callsInFlight,
    last_claim_at: b.lastClaimAt,
  });
  await store.dialers.prune(b.now - FORGET_AFTER_MS);
}

/**
 * The running dialers, or, given campaign ids, those that serve any of them
 * (a dialer started without --campaign serves all).
 */
export async function liveDialers(store: Store, now: number, campaignIds?: readonly string[]): Promise<DialerRow[]> {
  const live = await store.dialers.live(now - DIALER_LIVE_MS);
  if (!campaignIds) return live;
  const wanted = new Set(campaignIds);
  return live.filter((d) => d.campaigns === 'all' || d.campaigns.split(',').some((id) => wanted.has(id)));
}
