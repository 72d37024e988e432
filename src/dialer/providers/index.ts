/** The provider a campaign names, built from its settings. */
import type { CampaignTable } from '../../db/schema.js';
import { parseDurationRange } from '../../scheduling/duration.js';
import { parseFailureMix } from './failure-mix.js';
import { simulateProvider, type SimulateOptions } from './simulate.js';
import type { CallProvider } from './types.js';
import { webhookProvider } from './webhook.js';

export type { CallProvider, CallRequest, CallResult } from './types.js';

export interface ProviderOptions {
  /** the simulate provider's call duration range, ms, for every campaign (--simulate-duration); default: each campaign's own */
  simulateDurationMs?: readonly [number, number];
  random?: () => number;
  sleep?: SimulateOptions['sleep'];
  /** how long a webhook call may take before it counts as failed */
  callTimeoutMs: number;
}

type ProviderSettings = Pick<
  CampaignTable,
  'provider' | 'provider_url' | 'predial_secret' | 'simulate_success' | 'simulate_failures' | 'simulate_duration'
>;

export function providerFor(c: ProviderSettings, o: ProviderOptions): CallProvider {
  switch (c.provider) {
    case 'simulate':
      return simulateProvider({
        success: c.simulate_success,
        failures: parseFailureMix(c.simulate_failures),
        durationMs: o.simulateDurationMs ?? parseDurationRange(c.simulate_duration),
        random: o.random,
        sleep: o.sleep,
      });
    case 'webhook':
      if (!c.provider_url) throw new Error('the webhook provider needs a provider URL');
      return webhookProvider({ url: c.provider_url, secret: c.predial_secret, timeoutMs: o.callTimeoutMs });
    default:
      throw new Error(`unknown call provider "${c.provider}"`);
  }
}
