/**
 * The dialer's side of the dashboard: calls today, the last attempts, one
 * lead's history and its `explain` answer, and recycling. Rules stay in
 * src/dialer (explainLead, recycleLeads); this only reads and arranges.
 * Campaigns passed in were already checked to be the signed-in company's.
 */
import type { DueExplanation } from '../dialer/due.js';
import { explainLead } from '../dialer/explain.js';
import type { AttemptRow, HourlyCalls } from '../store/attempts.js';
import type { CallChart } from './views/chart.js';
import type { CampaignRow } from '../store/campaigns.js';
import type { Store } from '../store/index.js';
import type { LeadView } from './dashboard.js';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
const LAST_ATTEMPTS = 10;

interface CallCounts {
  calls: number;
  successes: number;
}

export interface Activity extends CallCounts {
  /** start of the UTC day the counts cover (the dashboard shows times in UTC) */
  since: number;
  /** the last 24 hours, this one included, per hour and outcome */
  hourly: CallChart;
  /** over the last 24 hours: attempts closed and their mean time from start to close; calls with a reported duration and its mean */
  durations: { closed: number; meanAttemptMs: number | null; timed: number; meanCallSeconds: number | null };
  byCampaign: ReadonlyMap<string, CallCounts>;
  last: (AttemptRow & { campaignName: string })[];
}

export async function activity(store: Store, campaigns: readonly CampaignRow[], now: number): Promise<Activity> {
  const ids = campaigns.map((c) => c.id);
  const since = Math.floor(now / DAY_MS) * DAY_MS;
  const from = Math.floor(now / HOUR_MS) - 23;
  const [counts, last, hourly] = await Promise.all([
    store.attempts.callsSince(ids, since),
    store.attempts.latest(ids, LAST_ATTEMPTS),
    store.attempts.hourly(ids, from * HOUR_MS),
  ]);
  const names = new Map(campaigns.map((c) => [c.id, c.name]));
  const sum = (f: (r: HourlyCalls) => number) => hourly.reduce((n, r) => n + f(r), 0);
  const closed = sum((r) => r.closed);
  const timed = sum((r) => r.timed);
  return {
    since,
    hourly: { from, rows: hourly },
    durations: {
      closed,
      meanAttemptMs: closed ? sum((r) => r.closedMs) / closed : null,
      timed,
      meanCallSeconds: timed ? sum((r) => r.durationSeconds) / timed : null,
    },
    calls: counts.reduce((n, c) => n + c.calls, 0),
    successes: counts.reduce((n, c) => n + c.successes, 0),
    byCampaign: new Map(counts.map((c) => [c.campaignId, c])),
    last: last.map((a) => ({ ...a, campaignName: names.get(a.campaign_id) ?? a.campaign_id })),
  };
}

export interface LeadDialerView {
  attempts: AttemptRow[];
  explanation: DueExplanation;
}

export async function leadDialer(store: Store, campaign: CampaignRow, lead: LeadView, now: number): Promise<LeadDialerView> {
  const by = lead.externalId !== null ? { externalId: lead.externalId } : { phoneNumber: lead.phoneNumber! };
  const [attempts, explanation] = await Promise.all([
    store.attempts.ofLead(campaign.id, lead.id),
    explainLead(store, campaign.id, by, now),
  ]);
  return { attempts, explanation };
}

/** as `leadline campaign recycle`: by default each lead gets the campaign's max attempts again */
export const recycle = (store: Store, campaign: CampaignRow, grant = campaign.max_attempts): Promise<number> =>
  store.queue.recycle(campaign.id, campaign.max_attempts, grant);
