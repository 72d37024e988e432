/**
 * One claimed lead, start to finish: check the called person's local time,
 * fetch the number for a prefetch lead, place the call, record the attempt.
 * Every path ends in exactly one write to the lead: an attempt, or a release
 * that undoes the claim (a deferral is a release that may also store the
 * zones of a prefetch lead's number).
 */
import { parseMetadata } from '../leads/metadata.js';
import { isOpen } from '../scheduling/hours.js';
import type { Store } from '../store/index.js';
import type { ClaimedLead } from '../store/queue.js';
import type { AttemptRecord, AttemptResult } from './attempts.js';
import type { DialerCampaign } from './campaign.js';
import { earliestOpen, zonesToCheck } from './due.js';
import { zoneSetIdFor, zoneSetKeyOf, zonesOfSet } from './local-zones.js';
import { zonesForLead } from './phone-timezone.js';
import { predial } from './predial.js';
import { ABORTED, type CallResult } from './providers/types.js';

export interface CallDeps {
  store: Store;
  now: () => number;
  predialTimeoutMs: number;
  /** writes the attempt (recorder.ts batches them) */
  record: (lead: ClaimedLead, a: AttemptRecord) => Promise<AttemptResult>;
}

export type LeadOutcome =
  | ({ kind: 'attempt'; success: boolean; outcome: string; reason: string | null; phoneNumber: string | null } & AttemptResult)
  /**
   * outside the called person's local window: the claim is undone, and the
   * lead is left alone until the window opens (`until`, for the log)
   */
  | { kind: 'deferred'; until: string }
  /** shutting down before the call was over: the lead is due again at once */
  | { kind: 'released' };

/** When nothing overlaps (a narrow window over far-apart zones), look again a day later. */
const NO_OVERLAP_RETRY_MS = 24 * 3_600_000;

export async function dialLead(deps: CallDeps, campaign: DialerCampaign, lead: ClaimedLead, signal: AbortSignal): Promise<LeadOutcome> {
  const metadata = parseMetadata(lead.metadata);
  /** undoes the claim when the window is closed in one of the zones; null when it is open in all */
  const deferral = (leadZones: string[], learnt?: string[]): Promise<LeadOutcome> | null => {
    const zones = zonesToCheck(leadZones, campaign.timezone);
    const now = new Date(deps.now());
    if (zones.every((z) => isOpen(campaign.localWindow, z, now))) return null;
    const opens = earliestOpen(zones.map((z) => [campaign.localWindow, z] as const), now);
    const until = new Date(opens ? opens.getTime() : now.getTime() + NO_OVERLAP_RETRY_MS).toISOString();
    return (async () => {
      const localZones = learnt ? await zoneSetIdFor(deps.store, zoneSetKeyOf(learnt)) : undefined;
      await deps.store.queue.release(lead, { localZones });
      return { kind: 'deferred', until };
    })();
  };
  const release = async (): Promise<LeadOutcome> => {
    await deps.store.queue.release(lead);
    return { kind: 'released' };
  };

  // The claim took the lead inside its window (claim.ts); this
  // catches a window that closed since, on the same zones the claim used.
  const stored = lead.localZones === null ? undefined : await zonesOfSet(deps.store, lead.localZones);
  const early = deferral(stored ?? zonesForLead({ phoneNumber: lead.phoneNumber, metadata }));
  if (early) return early;
  const startedAt = deps.now();
  let phoneNumber = lead.phoneNumber;
  let failed: CallResult | null = null;
  if (phoneNumber === null) {
    const url = campaign.row.predial_url;
    const found = url
      ? await predial({
          url,
          secret: campaign.row.predial_secret,
          leadId: lead.id,
          campaignId: lead.campaignId,
          externalId: lead.externalId,
          timeoutMs: deps.predialTimeoutMs,
          signal,
        })
      : { ok: false as const, reason: 'no phone number and the campaign has no predial function' };
    if (signal.aborted) return release();
    if (found.ok) {
      phoneNumber = found.phoneNumber;
      // Now that the number is known, its zone may be too. If it is outside
      // its window the lead keeps those zones, and the claim leaves it alone
      // until they open (`explain` reads the same zones).
      const zones = zonesForLead({ phoneNumber, metadata });
      const late = deferral(zones, zones);
      if (late) return late;
    } else {
      failed = { success: false, outcome: 'predial-failed', reason: found.reason };
    }
  }
  const result =
    failed ??
    (await campaign.provider.call(
      { leadId: lead.id, campaignId: lead.campaignId, phoneNumber: phoneNumber!, externalId: lead.externalId, metadata, attempt: lead.attempts + 1 },
      signal,
    ));
  // Only a call cut short by the shutdown is given back; one that ended is recorded.
  if (result.outcome === ABORTED && signal.aborted) return release();
  const reason = result.reason ?? null;
  const recorded = await deps.record(lead, {
    success: result.success,
    outcome: result.outcome,
    phoneNumber,
    reason,
    startedAt,
    finishedAt: deps.now(),
    retryDelayMs: campaign.row.retry_delay_ms,
  });
  return { kind: 'attempt', success: result.success, outcome: result.outcome, reason, phoneNumber, ...recorded };
}
