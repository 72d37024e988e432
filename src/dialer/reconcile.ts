/**
 * Reconciliation: an attempt on an AI voice platform whose outcome did not arrive by its call
 * timeout (Vapi sends no webhook retries by default, a Twilio callback can be lost, a create can
 * time out after the platform placed the call) is looked up with the platform's get-call endpoint
 * and closed with the mapped outcome. A call the platform does not know, or whose id never came
 * back, closes as unknown, as every other attempt past its timeout does. A call still in progress
 * at the timeout is hung up through the platform, and closes as unknown.
 */
import type { Logger } from 'pino';
import type { PendingAttempt } from '../store/queue.js';
import type { Store } from '../store/index.js';
import { countsWhenReported, type Ending } from './attempts.js';
import { type ProviderOptions, providerFor } from './providers/index.js';
import { isPlatformName } from './providers/platforms/index.js';

/** how long one look-up (and hang-up) may take before the attempt closes as unknown */
const LOOKUP_TIMEOUT_MS = 15_000;

/** the ending learnt from the provider; null: nothing was learnt, the attempt closes as unknown */
export type Reconcile = (p: PendingAttempt, now: number) => Promise<Omit<Ending, 'finishedAt'> | null>;

export function reconciler(store: Store, providers: ProviderOptions, log: Logger): Reconcile {
  return async (p) => {
    if (!isPlatformName(p.campaign.provider) || !p.providerCallId) return null;
    const ref = { attemptId: p.attemptId, providerCallId: p.providerCallId, control: p.providerControl };
    try {
      const row = await store.campaigns.byId(p.campaignId);
      if (!row) return null;
      const provider = providerFor(row, providers);
      const signal = AbortSignal.timeout(LOOKUP_TIMEOUT_MS);
      const found = await provider.lookup?.(ref, signal);
      if (!found || found.state === 'not-found') return null;
      if (found.state === 'ended') {
        return {
          success: found.success,
          outcome: found.outcome,
          reason: found.reason ?? null,
          durationSeconds: found.durationSeconds ?? null,
          ...countsWhenReported(found.outcome),
        };
      }
      await provider.hangUp?.(ref, signal);
      return {
        success: false,
        outcome: 'unknown',
        reason: `still in progress on ${p.campaign.provider} at the call timeout: hung up`,
        durationSeconds: null,
        counts: true,
      };
    } catch (err) {
      log.warn({ err, campaignId: p.campaignId, attemptId: p.attemptId }, 'could not ask the platform about a call past its timeout');
      return null;
    }
  };
}
