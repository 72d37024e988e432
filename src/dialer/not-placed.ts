/**
 * Calls that could not be placed (a provider down, refusing, rate limiting):
 * no attempt is spent, the lead is due again after a backoff with jitter, and
 * a campaign whose calls fail to be placed `pauseAfter` times in a row is
 * paused, with the reason shown wherever the campaign is (`campaign show`,
 * `lead explain`, the dashboard), until an operator resumes it.
 */
import type { Logger } from 'pino';
import type { Store } from '../store/index.js';
import type { DialerCampaign } from './campaign.js';

const BACKOFF_MS = 30_000;
const BACKOFF_MAX_MS = 15 * 60_000;
const PAUSE_AFTER = 20;

/** the wait after the run-th call in a row not placed, with jitter: the calls refused together are not all tried again together */
export function backoffAfter(run: number): number {
  const backoff = Math.min(BACKOFF_MS * 2 ** Math.min(run - 1, 10), BACKOFF_MAX_MS);
  return Math.round(backoff * (0.8 + 0.4 * Math.random()));
}

export class NotPlacedRuns {
  /** campaigns with calls not placed since their settings were last read */
  private readonly runs = new Set<string>();

  constructor(
    private readonly store: Store,
    private readonly log: Logger,
    private readonly now: () => number,
    private readonly pauseAfter = PAUSE_AFTER,
    /** a pause takes effect at once: the caller reloads the campaigns */
    private readonly paused: () => void = () => {},
  ) {}

  /** one more call not placed; the backoff before its lead is due again */
  async notPlaced(c: DialerCampaign, reason: string, retryAfterMs: number | undefined): Promise<number> {
    this.runs.add(c.id);
    const run = await this.store.campaigns.notPlaced(c.id);
    if (run >= this.pauseAfter) {
      await this.store.campaigns.pause(c.id, `${run} calls in a row could not be placed; the last: ${reason}`, this.now());
      this.log.error(
        { campaignId: c.id, reason },
        'dialer: campaign paused: calls could not be placed (leadline campaign resume clears it)',
      );
      this.paused();
    }
    return retryAfterMs ?? backoffAfter(run);
  }

  /** a call was placed: the run ends (written only when there may be one, or a busy campaign would write its row per call) */
  async placed(c: DialerCampaign): Promise<void> {
    if (c.row.not_placed_streak > 0 || this.runs.has(c.id)) {
      this.runs.delete(c.id);
      await this.store.campaigns.placed(c.id);
    }
  }
}
