/**
 * The dialer worker: claims due leads for its campaigns, runs up to each
 * campaign's concurrency of calls at once, renews the claims of calls in
 * flight, and on stop lets calls finish (bounded), then gives back the rest.
 * Any number of workers may run against one database.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import { isOpen } from '../scheduling/hours.js';
import type { Store } from '../store/index.js';
import type { ClaimedLead } from '../store/queue.js';
import { type CallDeps, dialLead } from './call.js';
import { type DialerCampaign, toDialerCampaign } from './campaign.js';
import { claimDue } from './claim.js';
import { logOutcome, type RunSummary } from './outcome-log.js';
import type { ProviderOptions } from './providers/index.js';
import { AttemptRecorder } from './recorder.js';

export type { RunSummary } from './outcome-log.js';

export interface DialerOptions extends Partial<ProviderOptions> {
  store: Store;
  logger: Logger;
  /** the campaigns to serve; null or absent: all of them, including ones created later */
  campaignIds?: readonly string[] | null;
  workerId?: string;
  now?: () => number;
  /** a claim not renewed for this long lapses, and the lead is due again */
  claimTimeoutMs?: number;
  /** how often a campaign with nothing due is asked again */
  pollIntervalMs?: number;
  predialTimeoutMs?: number;
  /** how long campaign settings are cached; `campaign update` takes effect within this */
  campaignRefreshMs?: number;
}

interface InFlight {
  lead: ClaimedLead;
  abort: AbortController;
  done: Promise<void>;
}

export const newWorkerId = () => `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;

export class Dialer {
  readonly workerId: string;
  private readonly store: Store;
  private readonly log: Logger;
  private readonly now: () => number;
  private readonly claimTimeoutMs: number;
  private readonly pollIntervalMs: number;
  private readonly deps: CallDeps;
  private readonly providers: ProviderOptions;
  private readonly inFlight = new Map<number, InFlight>();
  private readonly perCampaign = new Map<string, number>();
  /** campaigns with nothing due are asked again after this instant */
  private readonly idleUntil = new Map<string, number>();
  private campaigns: { at: number; list: DialerCampaign[] } | null = null;
  private stopping = false;
  /** the current claim loop; stop() waits for it before counting calls in flight */
  private claiming: Promise<void> = Promise.resolve();
  private wakeUp: () => void = () => {};
  private renewTimer: NodeJS.Timeout | undefined;
  private readonly summary: RunSummary = { attempts: 0, concluded: 0, deferred: 0 };

  constructor(private readonly o: DialerOptions) {
    this.store = o.store;
    this.log = o.logger;
    this.workerId = o.workerId ?? newWorkerId();
    this.now = o.now ?? Date.now;
    this.claimTimeoutMs = o.claimTimeoutMs ?? 60_000;
    this.pollIntervalMs = o.pollIntervalMs ?? 1000;
    const recorder = new AttemptRecorder(o.store);
    this.deps = { store: o.store, now: this.now, predialTimeoutMs: o.predialTimeoutMs ?? 5000, record: (lead, a) => recorder.record(lead, a) };
    this.providers = {
      callTimeoutMs: o.callTimeoutMs ?? 5 * 60_000,
      simulateDurationMs: o.simulateDurationMs,
      random: o.random,
      sleep: o.sleep,
    };
  }

  /** Calls everything due now in the served campaigns, waits for those calls, returns. */
  async runOnce(): Promise<RunSummary> {
    await this.session(async () => {
      // Leads that fall due during the run (a failed call with no retry
      // delay) wait for the next run: "once" means what was due at the start.
      const dueBy = this.now() - 1;
      const campaigns = await this.loadCampaigns(true);
      const pending = new Set(campaigns.map((c) => c.id));
      while (pending.size > 0 && !this.stopping) {
        const woken = this.nextWake();
        for (const c of campaigns) {
          if (pending.has(c.id) && (await this.fill(c, dueBy)) !== 'full') pending.delete(c.id);
        }
        if (pending.size > 0) await woken;
      }
    });
    return { ...this.summary };
  }

  /** Runs until stop(): claims whatever falls due, as slots free up. */
  async run(): Promise<void> {
    await this.session(async () => {
      while (!this.stopping) {
        const woken = this.nextWake();
        try {
          for (const c of await this.loadCampaigns(false)) {
            if ((this.idleUntil.get(c.id) ?? 0) > this.now()) continue;
            if ((await this.fill(c)) !== 'full') this.idleUntil.set(c.id, this.now() + this.pollIntervalMs);
          }
        } catch (err) {
          // The database is down or refused a statement: keep the calls in
          // flight going, and try again after the poll interval.
          this.log.error({ err }, 'dialer: claiming failed; retrying');
        }
        await Promise.race([woken, new Promise((r) => setTimeout(r, this.pollIntervalMs).unref())]);
      }
    });
  }

  /**
   * Stops claiming, gives calls in flight up to graceMs to finish, then cuts
   * the rest short and releases their leads (due again at once).
   */
  async stop(graceMs = 30_000): Promise<void> {
    this.stopping = true;
    this.wakeUp();
    // Once the claim loop has returned, nothing new is started.
    await this.claiming;
    const all = () => Promise.allSettled([...this.inFlight.values()].map((f) => f.done));
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([all(), new Promise((r) => (timer = setTimeout(r, graceMs)))]);
    clearTimeout(timer);
    if (this.inFlight.size > 0) {
      this.log.warn({ calls: this.inFlight.size }, 'dialer: grace period over; releasing calls still in flight');
      for (const f of this.inFlight.values()) f.abort.abort();
      await all();
    }
  }

  /** Runs a claim loop; returns once it has ended and every call it started is over. */
  private async session(loop: () => Promise<void>): Promise<void> {
    this.startRenewing();
    const claiming = loop();
    this.claiming = claiming.catch(() => {});
    try {
      await claiming;
    } finally {
      // Also when a claim failed: the calls already started are seen
      // through, with their claims renewed until the last one is over.
      await this.settle();
      this.stopRenewing();
    }
  }

  get callsInFlight(): number {
    return this.inFlight.size;
  }

  /** Claims into the campaign's free slots. 'full': slots are full; 'idle': nothing (more) is due. */
  private async fill(c: DialerCampaign, dueBy?: number): Promise<'full' | 'idle'> {
    if (!isOpen(c.hours, c.timezone, new Date(this.now()))) return 'idle';
    for (;;) {
      const free = c.row.concurrency - (this.perCampaign.get(c.id) ?? 0);
      if (free <= 0) return 'full';
      if (this.stopping) return 'idle';
      const leads = await claimDue(this.store, {
        campaignId: c.id,
        maxAttempts: c.row.max_attempts,
        workerId: this.workerId,
        limit: free,
        now: this.now(),
        dueBy,
        leaseMs: this.claimTimeoutMs,
        local: { window: c.localWindow, windowSpec: c.row.local_window, timezone: c.timezone },
      });
      if (this.stopping) {
        // stop() came while this claim was on its way: give the leads back untouched.
        await Promise.all(leads.map((lead) => this.store.queue.release(lead)));
        return 'idle';
      }
      for (const lead of leads) this.launch(c, lead);
      if (leads.length < free) return 'idle';
    }
  }

  private launch(c: DialerCampaign, lead: ClaimedLead): void {
    if (this.inFlight.has(lead.seq)) {
      // Our own claim lapsed (renewal failed) while the call is still going:
      // leave the new claim to lapse too rather than dial the lead twice.
      this.log.warn({ leadId: lead.id }, 'dialer: claimed a lead whose call is still in flight here; skipping');
      return;
    }
    const entry: InFlight = { lead, abort: new AbortController(), done: Promise.resolve() };
    this.inFlight.set(lead.seq, entry);
    this.perCampaign.set(c.id, (this.perCampaign.get(c.id) ?? 0) + 1);
    entry.done = this.dial(c, lead, entry.abort);
  }

  private async dial(c: DialerCampaign, lead: ClaimedLead, abort: AbortController): Promise<void> {
    const started = this.now();
    try {
      const outcome = await dialLead(this.deps, c, lead, abort.signal);
      logOutcome(this.log, this.summary, lead, outcome, this.now() - started);
    } catch (err) {
      this.log.error({ err, campaignId: lead.campaignId, leadId: lead.id }, 'dialer: call failed; releasing the lead');
      // If this fails too, the claim lapses at its timeout: nothing is lost.
      await this.store.queue.release(lead).catch(() => {});
    } finally {
      this.inFlight.delete(lead.seq);
      this.perCampaign.set(c.id, (this.perCampaign.get(c.id) ?? 1) - 1);
      this.wakeUp();
    }
  }

  private nextWake(): Promise<void> {
    return new Promise((resolve) => (this.wakeUp = resolve));
  }

  private async settle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight.values()].map((f) => f.done));
  }

  private async loadCampaigns(fresh: boolean): Promise<DialerCampaign[]> {
    const at = this.now();
    const refresh = this.o.campaignRefreshMs ?? 2000;
    if (!fresh && this.campaigns && at - this.campaigns.at < refresh && at >= this.campaigns.at) return this.campaigns.list;
    const list: DialerCampaign[] = [];
    for (const row of await this.store.campaigns.list(this.o.campaignIds ?? null)) {
      try {
        list.push(toDialerCampaign(row, this.providers));
      } catch (err) {
        this.log.error({ campaignId: row.id, err: (err as Error).message }, 'dialer: campaign settings unusable; skipping the campaign');
      }
    }
    this.campaigns = { at, list };
    return list;
  }

  private startRenewing(): void {
    const every = Math.max(50, Math.floor(this.claimTimeoutMs / 3));
    this.renewTimer = setInterval(() => {
      const seqs = [...this.inFlight.keys()];
      this.store.queue.renew(this.workerId, seqs, this.now() + this.claimTimeoutMs).catch((err) =>
        this.log.error({ err }, 'dialer: renewing claims failed; they lapse at their timeout unless a later renewal succeeds'),
      );
    }, every);
    this.renewTimer.unref();
  }

  private stopRenewing(): void {
    clearInterval(this.renewTimer);
  }
}
