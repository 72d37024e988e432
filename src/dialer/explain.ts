/** `leadline lead explain`: the due rules of due.ts applied to a stored lead, as the worker sees it. */
import { callCapFor } from '../compliance/call-caps.js';
import { AppError } from '../errors.js';
import { parseMetadata } from '../leads/metadata.js';
import { closedDatesOf } from '../scheduling/closed-dates.js';
import { parseHours, parseLocalWindow } from '../scheduling/hours.js';
import type { CampaignRow } from '../store/campaigns.js';
import type { Store } from '../store/index.js';
import type { DialerLeadRow } from '../store/queue.js';
import { type DueExplanation, explainDue } from './due.js';
import { hasConsent } from '../compliance/consent.js';
import { regionalLimitFor } from '../compliance/regional-rules.js';
import { zonesOfSet } from './local-zones.js';
import { zonesForLead } from './phone-timezone.js';

export async function explainLead(
  store: Store,
  campaignId: string,
  by: { externalId: string } | { phoneNumber: string },
  now: number,
): Promise<DueExplanation> {
  const campaign = await store.campaigns.byId(campaignId);
  if (!campaign) throw new AppError('not_found', `campaign ${campaignId} not found`);
  const lead = await store.queue.find(campaignId, by);
  if (!lead)
    throw new AppError(
      'not_found',
      `no lead with ${'externalId' in by ? `externalId ${by.externalId}` : `phone number ${by.phoneNumber}`} in campaign ${campaignId}`,
    );
  return explainRow(store, campaign, lead, now);
}

/** explainLead for a lead already read, with its campaign (the dashboard's Next up explains 50 at once) */
export async function explainRow(store: Store, campaign: CampaignRow, lead: DialerLeadRow, now: number): Promise<DueExplanation> {
  const date = (iso: string | null) => (iso === null ? null : new Date(iso));
  // While a claim is held, next_attempt_at is the claim's expiry (store/queue.ts).
  const claimed = lead.claimed_by !== null;
  // The zones the claim checks (local-zones.ts): stored on the lead, or, until
  // the dialer has stored them, what it will store.
  const listed = lead.phone_number === null ? undefined : await store.dnc.get(campaign.company_id, lead.phone_number);
  const cap = lead.phone_number === null ? null : await callCapFor(store, campaign.company_id, lead.phone_number, now);
  const stored = lead.local_zones === null ? undefined : await zonesOfSet(store, Number(lead.local_zones));
  return explainDue(
    {
      status: lead.status,
      attempts: lead.attempts,
      maxAttempts: campaign.max_attempts + Number(lead.extra_attempts),
      scheduledFor: date(lead.scheduled_for),
      nextAttemptAt: claimed ? null : date(lead.next_attempt_at),
      claimedBy: lead.claimed_by,
      claimExpiresAt: claimed ? date(lead.next_attempt_at) : null,
      campaign: {
        hours: parseHours(campaign.hours),
        timezone: campaign.timezone,
        localWindow: parseLocalWindow(campaign.local_window),
        closedDates: closedDatesOf(campaign.closed_dates),
        pausedReason: campaign.paused_at === null ? null : (campaign.paused_reason ?? 'paused'),
      },
      leadZones: stored ?? zonesForLead({ phoneNumber: lead.phone_number, metadata: parseMetadata(lead.metadata) }),
      doNotCall: listed ? { addedAt: new Date(listed.addedAt), source: listed.source } : null,
      regional: regionalLimitFor(campaign.regional_rules, lead.phone_number),
      callCap: cap ? { cap: cap.cap, until: new Date(cap.until) } : null,
      ...(campaign.require_consent ? { consent: hasConsent(parseMetadata(lead.metadata)) } : {}),
    },
    new Date(now),
  );
}
