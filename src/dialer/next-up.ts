/**
 * The dashboard's Next up: the leads a campaign's dialer takes next, in the
 * order its claim takes them (QueueStore.upcoming), each with the answer
 * `leadline lead explain` gives for it (explain.ts). Read-only: nothing is
 * claimed or changed, so it can disagree with a dialer only by what changes
 * between the reading and the dialer's next pass.
 */
import type { CampaignRow } from '../store/campaigns.js';
import type { Store } from '../store/index.js';
import type { DialerLeadRow } from '../store/queue.js';
import type { DueExplanation } from './due.js';
import { explainRow } from './explain.js';

export interface NextUpLead {
  lead: DialerLeadRow;
  /** its turn among the leads called now (1 first); null when it is held back */
  turn: number | null;
  explanation: DueExplanation;
}

export async function nextUp(store: Store, campaign: CampaignRow, now: number, limit: number): Promise<NextUpLead[]> {
  const leads = await store.queue.upcoming(campaign.id, now, limit);
  let turn = 0;
  const next: NextUpLead[] = [];
  for (const lead of leads) {
    const explanation = await explainRow(store, campaign, lead, now);
    next.push({ lead, turn: explanation.due ? ++turn : null, explanation });
  }
  return next;
}
