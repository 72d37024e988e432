/** A campaign as the worker uses it: settings parsed once per refresh, its call provider built. */
import type { CampaignRow } from '../store/campaigns.js';
import { type WeeklyHours, parseHours, parseLocalWindow } from '../scheduling/hours.js';
import { type ProviderOptions, providerFor } from './providers/index.js';
import type { CallProvider } from './providers/types.js';

export interface DialerCampaign {
  readonly id: string;
  readonly row: CampaignRow;
  readonly timezone: string;
  readonly hours: WeeklyHours;
  readonly localWindow: WeeklyHours;
  readonly provider: CallProvider;
}

/** Throws when a setting cannot be used (a row written around the CLI's validation). */
export function toDialerCampaign(row: CampaignRow, providers: ProviderOptions): DialerCampaign {
  return {
    id: row.id,
    row,
    timezone: row.timezone,
    hours: parseHours(row.hours),
    localWindow: parseLocalWindow(row.local_window),
    provider: providerFor(row, providers),
  };
}
