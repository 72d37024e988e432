/**
 * A campaign's AI voice platform (Vapi, Retell, Bland, Twilio) as the dialer's CallProvider: the
 * adapter in platforms/ with the campaign's settings, the secrets opened, every request through
 * the outbound policy, and each create-call given its own callback URL under PUBLIC_URL.
 */
import { providerOptions } from '../../campaigns/settings.js';
import { providerSecrets } from '../../campaigns/service.js';
import type { Secrets } from '../../crypto/secrets.js';
import type { CampaignRow } from '../../store/campaigns.js';
import { platformFor, type HttpRequester, type Platform, type PlatformContext } from './platforms/index.js';
import type { CallProvider } from './types.js';

/**
 * How long one request to a platform may take. A create that has not answered by then may have
 * placed the call, so its attempt stays open for reconciliation; it is never sent again.
 */
const PLATFORM_TIMEOUT_MS = 10_000;

export type PlatformSettings = Pick<
  CampaignRow,
  'id' | 'provider' | 'provider_secret' | 'provider_options' | 'provider_base_url' | 'provider_webhook_secret'
>;

/** where a platform posts one attempt's events: the webhook route of `leadline serve` */
function callbackUrl(publicUrl: string, platform: Platform['name'], attemptId: string): string {
  return `${publicUrl.replace(/\/+$/, '')}/api/v1/providers/${platform}/events?attemptId=${encodeURIComponent(attemptId)}`;
}

/** The campaign's adapter and its context (without a callback URL), for the dialer and the webhook route. */
export function platformContext(
  c: PlatformSettings,
  secrets: Secrets,
  request: HttpRequester,
): { platform: Platform; ctx: Omit<PlatformContext, 'callbackUrl'> } {
  const platform = platformFor(c.provider);
  const { secret, webhookSecret } = providerSecrets(c, secrets);
  if (!secret) throw new Error(`the ${platform.name} provider needs --provider-secret`);
  return {
    platform,
    ctx: {
      secret,
      webhookSecret,
      options: platform.parseOptions(providerOptions(c.provider_options)),
      baseUrl: c.provider_base_url ?? platform.defaultBaseUrl,
      timeoutMs: PLATFORM_TIMEOUT_MS,
      request,
    },
  };
}

export function platformProvider(
  c: PlatformSettings,
  o: { publicUrl: string | undefined; secrets: Secrets; request: HttpRequester },
): CallProvider {
  const { publicUrl } = o;
  if (!publicUrl) {
    throw new Error(
      `the ${c.provider} provider needs PUBLIC_URL, the address at which ${c.provider} reaches \`leadline serve\` to report each call's end`,
    );
  }
  const { platform, ctx } = platformContext(c, o.secrets, o.request);
  // lookups and hang-ups send no callback URL
  const plain: PlatformContext = { ...ctx, callbackUrl: '' };
  return {
    ...platformCalls(c, o),
    /**
     * The create is never cut short by the dialer's own abort (a lost claim, a shutdown past its
     * grace): cut, a call the platform had placed would go on with no id to end it by until the
     * call timeout. It runs to its answer (PLATFORM_TIMEOUT_MS at most), and a call it placed for
     * an aborted attempt is hung up at once; the attempt stays open for the platform's report of
     * the call's end, as for any accepted call.
     */
    place: async (call, signal) => {
      const result = await platform.place(
        call,
        { ...ctx, callbackUrl: callbackUrl(publicUrl, platform.name, call.attemptId) },
        new AbortController().signal,
      );
      if (signal.aborted && result.kind === 'accepted' && result.providerCallId !== null) {
        const ref = { attemptId: call.attemptId, providerCallId: result.providerCallId, control: result.control ?? null };
        // a hang-up that fails leaves the call to reconciliation at the call timeout, which hangs up what is still live
        await platform.hangUp(ref, plain, AbortSignal.timeout(PLATFORM_TIMEOUT_MS)).catch(() => {});
      }
      return result;
    },
  };
}

/**
 * A platform's calls as reconciliation asks about them: lookups and hang-ups send no callback
 * URL, so a dialer without PUBLIC_URL (serving simulate campaigns, or a `--once` run) can ask
 * about another dialer's calls instead of closing them unknown. Throws when the campaign's secret
 * cannot be opened here.
 */
export function platformCalls(
  c: PlatformSettings,
  o: { secrets: Secrets; request: HttpRequester },
): Required<Pick<CallProvider, 'lookup' | 'hangUp'>> {
  const { platform, ctx } = platformContext(c, o.secrets, o.request);
  const plain: PlatformContext = { ...ctx, callbackUrl: '' };
  return {
    lookup: (ref, signal) => platform.lookup(ref, plain, signal),
    hangUp: (ref, signal) => platform.hangUp(ref, plain, signal),
  };
}
