/** A campaign as the worker uses it: settings parsed once per refresh, its call provider built. */
import { predialSecret } from '../campaigns/service.js';
import { isRegionalRules } from '../compliance/regional-rules.js';
import { secretsFor } from '../crypto/secrets.js';
import type { CampaignRow } from '../store/campaigns.js';
import type { Store } from '../store/index.js';
import { type WeeklyHours, parseHours, parseLocalWindow } from '../scheduling/hours.js';
import { type ClosedDates, closedDatesOf } from '../scheduling/closed-dates.js';
import type { RetryDelays } from './attempts.js';
import { type ProviderOptions, providerFor } from './providers/index.js';
import type { CallProvider } from './providers/types.js';

export interface DialerCampaign {
  readonly id: string;
  readonly row: CampaignRow;
  readonly timezone: string;
  readonly hours: WeeklyHours;
  readonly localWindow: WeeklyHours;
  /** --closed-dates; null when none */
  readonly closedDates: ClosedDates | null;
  /** --regional-rules: 'us' or 'off' (compliance/regional-rules.ts) */
  readonly regionalRules: string;
  readonly provider: CallProvider;
  /** in plain text (stored sealed when SECRET_KEY is set) */
  readonly predialSecret: string | null;
  readonly retry: RetryDelays;
  /** an attempt whose outcome has not arrived after this long closes as unknown */
  readonly callTimeoutMs: number;
}

/** the settings that decide when a campaign may call whom */
export type CallingRules = Pick<DialerCampaign, 'timezone' | 'hours' | 'localWindow' | 'closedDates' | 'regionalRules'>;

/**
 * A row's calling rules; throws when one cannot be used (a row written around the CLI's
 * validation). A regional-rules value other than `us` or `off` ('US', 'on', '') is refused rather
 * than read as off: read so, it called Alabama on a Sunday.
 */
export function callingRulesOf(row: CampaignRow): CallingRules {
  if (!isRegionalRules(row.regional_rules)) throw new Error(`regional rules "${row.regional_rules}" are neither us nor off`);
  return {
    timezone: row.timezone,
    hours: parseHours(row.hours),
    localWindow: parseLocalWindow(row.local_window),
    closedDates: closedDatesOf(row.closed_dates),
    regionalRules: row.regional_rules,
  };
}

/** Throws when a setting cannot be used (a row written around the CLI's validation). */
function toDialerCampaign(row: CampaignRow, providers: ProviderOptions): DialerCampaign {
  return {
    id: row.id,
    row,
    ...callingRulesOf(row),
    provider: providerFor(row, providers),
    predialSecret: predialSecret(row, providers.secrets ?? secretsFor(undefined)),
    retry: { defaultMs: Number(row.retry_delay_ms), byOutcome: row.retry_delays },
    callTimeoutMs: Number(row.call_timeout_ms),
  };
}

/** what the claim checks on the called person's clock and calendar (claim.ts DueClaim.local) */
export const localOf = (c: DialerCampaign) => ({
  window: c.localWindow,
  windowSpec: c.row.local_window,
  timezone: c.timezone,
  closed: c.closedDates,
});

/** The campaigns a worker serves (the given ones, or all of them); one whose settings cannot be used is reported and skipped. */
export async function loadDialerCampaigns(
  store: Store,
  ids: readonly string[] | null,
  providers: ProviderOptions,
  unusable: (campaignId: string, err: Error) => void,
  /**
   * the campaigns of the previous load, by id and settings: an unchanged row
   * is not parsed again (a running dialer loads every campaign every two
   * seconds, and parsing hours and windows of thousands was much of its idle work)
   */
  cache?: Map<string, { json: string; campaign: DialerCampaign }>,
): Promise<DialerCampaign[]> {
  const list: DialerCampaign[] = [];
  const seen = new Map<string, { json: string; campaign: DialerCampaign }>();
  for (const row of await store.campaigns.list(ids)) {
    const json = JSON.stringify(row);
    const hit = cache?.get(row.id);
    if (hit?.json === json) {
      list.push(hit.campaign);
      seen.set(row.id, hit);
      continue;
    }
    try {
      const campaign = toDialerCampaign(row, providers);
      list.push(campaign);
      seen.set(row.id, { json, campaign });
    } catch (err) {
      unusable(row.id, err as Error);
    }
  }
  if (cache) {
    cache.clear();
    for (const [id, entry] of seen) cache.set(id, entry);
  }
  return list;
}
