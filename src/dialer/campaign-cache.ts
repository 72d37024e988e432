/**
 * The campaigns a running dialer serves, and how it learns of changes to
 * them. Every refresh interval (campaignRefreshMs, 2 s) it asks for one
 * fingerprint of them (store/campaigns.ts, revision: triggers move it on
 * every change, migration 0023) and reads the rows again only when it moved,
 * and in full at least every FULL_RELOAD_MS. A running dialer sleeps no
 * longer than the next refresh (worker.ts, run), so a settings change
 * (`leadline campaign update --hours`, `campaign resume`, an UPDATE in psql)
 * reaches a campaign that is closed or idle within the interval, as
 * docs/dialer.md promises; before, such a campaign waited for the idle poll
 * (60 s). Why a fingerprint rather than the rows each time: over 10,000
 * campaigns a read of the rows took 180 ms of CPU on SQLite and 90 ms on
 * PostgreSQL, 4-9% of a core every two seconds, against an idle budget of 5%.
 * Why not an event written by the change: it would miss changes made around
 * leadline, and add a type to the public events feed.
 */
import type { Logger } from 'pino';
import type { Store } from '../store/index.js';
import { type DialerCampaign, loadDialerCampaigns } from './campaign.js';
import type { ProviderOptions } from './providers/index.js';
import type { Schedule } from './schedule.js';

/**
 * the rows are read in full at least this often: a safety net, since a
 * fingerprint is a sum, and a sum could in principle hide two changes that
 * cancel out
 */
const FULL_RELOAD_MS = 60_000;

export class CampaignCache {
  /** when last checked (at), when last read in full (loadedAt), and the fingerprint then */
  private held: { at: number; loadedAt: number; revision: string; list: DialerCampaign[] } | null = null;
  /** the parsed campaigns of the last load, reused while their rows are unchanged */
  private readonly parsed = new Map<string, { json: string; campaign: DialerCampaign }>();

  constructor(
    private readonly o: {
      store: Store;
      /** null: every campaign */
      ids: readonly string[] | null;
      providers: ProviderOptions;
      log: Logger;
      now: () => number;
      refreshMs: number;
      schedule: Schedule;
      /** after each read of the rows */
      loaded: () => void;
    },
  ) {}

  /** the next read is of the rows (the dialer changed a campaign itself, or found one paused) */
  forget(): void {
    this.held = null;
  }

  /** when the campaigns should be checked again: a running dialer sleeps no longer */
  refreshAt(): number {
    return this.held ? this.held.at + this.o.refreshMs : this.o.now();
  }

  /** the campaigns; `fresh`: read now, whatever the interval */
  async get(fresh: boolean): Promise<DialerCampaign[]> {
    const at = this.o.now();
    const held = this.held;
    if (!fresh && held && at - held.at < this.o.refreshMs && at >= held.at) return held.list;
    // Read before the rows: a change committed between the two reads is
    // loaded now and seen as a change once more next time, never missed.
    const revision = await this.o.store.campaigns.revision(this.o.ids);
    if (!fresh && held && revision === held.revision && at - held.loadedAt < FULL_RELOAD_MS && at >= held.loadedAt) {
      this.held = { ...held, at };
      return held.list;
    }
    const list = await loadDialerCampaigns(
      this.o.store,
      this.o.ids,
      this.o.providers,
      (campaignId, err) => this.o.log.error({ campaignId, err: err.message }, 'dialer: campaign settings unusable; skipping the campaign'),
      this.parsed,
    );
    this.o.schedule.refreshed(list, held?.list ?? []);
    this.held = { at, loadedAt: at, revision, list };
    this.o.loaded();
    return list;
  }
}
