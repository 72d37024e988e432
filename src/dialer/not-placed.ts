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
const NOT_PLACED = 'not-placed';

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

  /**
   * One more call not placed; the backoff before its lead is due again. The run's count is
   * bookkeeping: when it cannot be written (a busy or unreachable database) the call is still
   * closed as not placed, with the first backoff, rather than its ending lost (call.ts).
   */
  async notPlaced(c: DialerCampaign, reason: string, retryAfterMs: number | undefined): Promise<number> {
    this.runs.add(c.id);
    let run = 1;
    try {
      run = await this.store.campaigns.notPlaced(c.id);
      if (run >= this.pauseAfter) {
        await this.store.campaigns.pause(c.id, `${run} calls in a row could not be placed; the last: ${reason}`, this.now());
        this.log.error(
          { campaignId: c.id, reason },
          'dialer: campaign paused: calls could not be placed (leadline campaign resume clears it)',
        );
        this.paused();
      }
    } catch (err) {
      this.log.error({ err, campaignId: c.id }, 'dialer: counting a call not placed failed; the run goes on with the next one');
    }
    return retryAfterMs ?? backoffAfter(run);
  }

  /**
   * A call was placed: the run ends (written only when there may be one, or a busy campaign would
   * write its row per call). A failed write is logged and left for the next placed call: it must
   * not cost the call its recorded outcome (call.ts).
   */
  async placed(c: DialerCampaign): Promise<void> {
    if (c.row.not_placed_streak > 0 || this.runs.has(c.id)) {
      try {
        await this.store.campaigns.placed(c.id);
        this.runs.delete(c.id);
      } catch (err) {
        this.log.error({ err, campaignId: c.id }, 'dialer: ending a run of calls not placed failed; the next placed call tries again');
      }
    }
  }
}

/** an outcome reported after the platform took the call: which campaign, and what */
export interface LateOutcome {
  campaignId: string;
  outcome: string;
}

/**
 * Outcomes reported later (a platform's webhook, an outcome report, reconciliation) of calls
 * their platform had taken. A platform that takes every call and then reports each one not placed
 * (out of credits, say) pauses its campaign as one refusing them outright does: after PAUSE_AFTER
 * such outcomes with no outcome of a placed call among them, once the first of them is older than
 * the campaign's call timeout (a run still shorter than PAUSE_AFTER a call timeout after its first
 * starts again). Counted in a row alone, campaigns that work would pause: with more
 * concurrency than a Vapi subscription allows, the calls over the limit are reported within
 * seconds and the placed ones only when they end, minutes later, and within the call timeout.
 * `unknown` (nothing learnt) neither counts nor ends the run. Bookkeeping: a failure is handed to
 * `failed`, never to the caller, whose outcome is recorded already.
 */
export async function lateOutcomes(
  store: Store,
  outcomes: readonly LateOutcome[],
  now: number,
  failed: (err: unknown, campaignId: string) => void = () => {},
): Promise<void> {
  const byCampaign = new Map<string, string[]>();
  for (const o of outcomes) byCampaign.set(o.campaignId, [...(byCampaign.get(o.campaignId) ?? []), o.outcome]);
  for (const [campaignId, list] of byCampaign) {
    try {
      // a placed call's outcome ends the run, whatever came with it
      if (list.some((o) => o !== NOT_PLACED && o !== 'unknown')) {
        await store.campaigns.latePlaced(campaignId);
        continue;
      }
      const n = list.filter((o) => o === NOT_PLACED).length;
      if (n === 0) continue;
      const row = await store.campaigns.byId(campaignId);
      if (!row) continue;
      const timeout = Number(row.call_timeout_ms);
      // a run that did not reach PAUSE_AFTER within a call timeout starts again: one not-placed
      // outcome in the evening must not make twenty the next morning (a campaign over its
      // platform's concurrency, whose placed calls report minutes later) a run of a whole night
      const { run, since } = await store.campaigns.lateNotPlaced(campaignId, n, now, now - timeout, PAUSE_AFTER);
      if (run < PAUSE_AFTER || now - since < timeout) continue;
      const minutes = Math.round((now - since) / 60_000);
      await store.campaigns.pause(
        campaignId,
        `${run} calls in a row were taken by the platform and reported not placed, over ${minutes} min, with no call placed`,
        now,
      );
    } catch (err) {
      failed(err, campaignId);
    }
  }
}
