/**
 * The campaign rows the API reads on every request, kept CAMPAIGN_CACHE_MS per
 * process so that they stay off the database. One cache per store, shared by
 * every service of the process (the API's and the dashboard's): a campaign
 * this process updates or deletes (service.ts) is dropped at once, so that its
 * own next request sees the change; another process's change is seen within
 * CAMPAIGN_CACHE_MS (docs/operations.md).
 */
import type { CampaignRow } from '../store/campaigns.js';
import type { Store } from '../store/index.js';

const CAMPAIGN_CACHE_MS = 1000;
/** past this many entries the cache starts over: a bound on memory, not a policy */
const MAX_ENTRIES = 10_000;

type Entry = { row: CampaignRow | undefined; until: number };
const caches = new WeakMap<Store, Map<string, Entry>>();

function cacheOf(store: Store): Map<string, Entry> {
  let cache = caches.get(store);
  if (!cache) caches.set(store, (cache = new Map()));
  return cache;
}

export async function cachedCampaign(store: Store, id: string, now: number): Promise<CampaignRow | undefined> {
  const cache = cacheOf(store);
  const hit = cache.get(id);
  if (hit && hit.until > now) return hit.row;
  const row = await store.campaigns.byId(id);
  if (cache.size > MAX_ENTRIES) cache.clear();
  cache.set(id, { row, until: now + CAMPAIGN_CACHE_MS });
  return row;
}

/** after a write of the campaign, once it has committed */
export function forgetCampaign(store: Store, id: string): void {
  caches.get(store)?.delete(id);
}
