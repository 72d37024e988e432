/** The provider a campaign names, built from its settings. */
import { predialSecret } from '../../campaigns/service.js';
import { type Secrets, secretsFor } from '../../crypto/secrets.js';
import { defaultHttpRequester } from '../../net/http.js';
import type { CampaignRow } from '../../store/campaigns.js';
import { parseDurationRange } from '../../scheduling/duration.js';
import { parseFailureMix } from './failure-mix.js';
import { type PlatformSettings, platformProvider } from './platform.js';
import { type HttpRequester, isPlatformName } from './platforms/index.js';
import { simulateProvider, type SimulateOptions } from './simulate.js';
import type { CallProvider } from './types.js';
import { webhookProvider } from './webhook.js';

export type { CallProvider } from './types.js';

export interface ProviderOptions {
  /** the simulate provider's call duration range, ms, for every campaign (--simulate-duration); default: each campaign's own */
  simulateDurationMs?: readonly [number, number];
  random?: () => number;
  sleep?: SimulateOptions['sleep'];
  /** PUBLIC_URL: where the AI voice platforms post their webhooks; without it their campaigns cannot be dialled */
  publicUrl?: string;
  /** opens the platforms' secrets (SECRET_KEY); default: stored as given */
  secrets?: Secrets;
  /** the platforms' requests; default: through the process's outbound policy */
  request?: HttpRequester;
}

type ProviderSettings = PlatformSettings &
  Pick<
    CampaignRow,
    | 'id'
    | 'provider'
    | 'provider_url'
    | 'predial_secret'
    | 'simulate_success'
    | 'simulate_failures'
    | 'simulate_duration'
    | 'call_timeout_ms'
  >;

export function providerFor(c: ProviderSettings, o: ProviderOptions): CallProvider {
  if (isPlatformName(c.provider)) {
    return platformProvider(c, {
      publicUrl: o.publicUrl,
      secrets: o.secrets ?? secretsFor(undefined),
      request: o.request ?? defaultHttpRequester,
    });
  }
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
      // a receiver that answers when the call is over may take as long as a call
      return webhookProvider({
        url: c.provider_url,
        secret: predialSecret(c, o.secrets ?? secretsFor(undefined)),
        timeoutMs: Number(c.call_timeout_ms),
      });
    default:
      throw new Error(`unknown call provider "${c.provider}"`);
  }
}
