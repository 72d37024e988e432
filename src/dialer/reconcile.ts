/**
 * Reconciliation: an attempt on an AI voice platform whose outcome did not arrive by its call
 * timeout (Vapi sends no webhook retries by default, a Twilio callback can be lost, a create can
 * time out after the platform placed the call) is looked up with the platform's get-call endpoint
 * and closed with the mapped outcome. A call the platform does not know, or whose id never came
 * back, closes as unknown, as every other attempt past its timeout does. A call still in progress
 * at the timeout is hung up through the platform, and closes as unknown.
 *
 * A platform that cannot be asked (it answers 5xx or 429, a timeout, a secret this dialer cannot
 * open) or a live call that cannot be hung up is not closed on that: closed as unknown, an
 * answered person would be called again, and a live call would lose its slot and its number's
 * lock while it goes on. The attempt is asked about again a minute later, for up to an hour past
 * its call timeout; then it closes as unknown.
 */
import type { Logger } from 'pino';
import type { PendingAttempt } from '../store/queue.js';
import type { Store } from '../store/index.js';
import { secretsFor } from '../crypto/secrets.js';
import { defaultHttpRequester } from '../net/http.js';
import { countsWhenReported, type Ending } from './attempts.js';
import type { ProviderOptions } from './providers/index.js';
import { platformCalls } from './providers/platform.js';
import { isPlatformName } from './providers/platforms/index.js';

/** how long one look-up (and hang-up) may take before it counts as failed */
const LOOKUP_TIMEOUT_MS = 15_000;
/** after a failed look-up or hang-up, when the attempt is asked about again */
export const ASK_AGAIN_MS = 60_000;
/** how long past its call timeout an attempt is asked about before it closes as unknown */
const GIVE_UP_MS = 3_600_000;

/**
 * the ending learnt from the provider; null: nothing can be learnt, the attempt closes as unknown;
 * 'later': the platform could not be asked (or could not hang up), ask again at ASK_AGAIN_MS
 */
export type Reconcile = (p: PendingAttempt, now: number) => Promise<Omit<Ending, 'finishedAt'> | 'later' | null>;

export function reconciler(store: Store, providers: ProviderOptions, log: Logger): Reconcile {
  return async (p, now) => {
    if (!isPlatformName(p.campaign.provider) || !p.providerCallId) return null;
    const ref = { attemptId: p.attemptId, providerCallId: p.providerCallId, control: p.providerControl };
    // past the last time to ask: what is left closes as unknown
    const later = now < p.startedAt + p.campaign.callTimeoutMs + GIVE_UP_MS ? 'later' : null;
    try {
      const row = await store.campaigns.byId(p.campaignId);
      if (!row) return null;
      const calls = platformCalls(row, {
        secrets: providers.secrets ?? secretsFor(undefined),
        request: providers.request ?? defaultHttpRequester,
      });
      const signal = AbortSignal.timeout(LOOKUP_TIMEOUT_MS);
      const found = await calls.lookup(ref, signal);
      if (found.state === 'not-found') return null;
      if (found.state === 'ended') {
        return {
          success: found.success,
          outcome: found.outcome,
          reason: found.reason ?? null,
          durationSeconds: found.durationSeconds ?? null,
          ...countsWhenReported(found.outcome),
        };
      }
      await calls.hangUp(ref, signal);
      return {
        success: false,
        outcome: 'unknown',
        reason: `still in progress on ${p.campaign.provider} at the call timeout: hung up`,
        durationSeconds: null,
        counts: true,
      };
    } catch (err) {
      log.warn(
        { err, campaignId: p.campaignId, attemptId: p.attemptId },
        later
          ? 'could not ask the platform about a call past its timeout; asking again in a minute'
          : 'could not ask the platform about a call past its timeout; closed as unknown',
      );
      return later;
    }
  };
}
