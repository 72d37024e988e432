/**
 * The dialer worker: claims due leads for its campaigns, runs their calls,
 * renews the claims of calls in flight (and aborts a call whose claim it
 * lost), closes attempts nobody follows any more, heartbeats, and on stop lets
 * calls finish (bounded), then hangs up the rest. Any number of workers may
 * run against one database; a campaign's concurrency and calls per second hold
 * across all of them.
 *
 * A little longer than 300 lines because the claim loop, the calls in flight
 * and stop() share one piece of state (which calls run, for which campaign),
 * and splitting it would scatter that state; the parts that need none of it
 * live beside it (schedule, campaign-cache, recovery, heartbeat, not-placed, wakeups, clock-guard).
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import { isOpen } from '../scheduling/hours.js';
import type { Store } from '../store/index.js';
import type { ClaimedLead } from '../store/queue.js';
import { type CallDeps, type CallProgress, dialLead } from './call.js';
import { type DialerCampaign, localOf } from './campaign.js';
import { CampaignCache } from './campaign-cache.js';
import { claimDueFree } from './claim.js';
import { ClockGuard } from './clock-guard.js';
import { heartbeat } from './heartbeat.js';
import { NotPlacedRuns } from './not-placed.js';
import { logOutcome, type RunSummary } from './outcome-log.js';
import type { ProviderOptions } from './providers/index.js';
import { AttemptRecorder } from './recorder.js';
import { Pacer } from './pacer.js';
import { reconciler } from './reconcile.js';
import { recoverStale, renewCalls } from './recovery.js';
import { Schedule } from './schedule.js';
import { Wakeups } from './wakeups.js';

export type { RunSummary } from './outcome-log.js';

export interface DialerOptions extends Partial<ProviderOptions> {
  store: Store;
  logger: Logger;
  /** the campaigns to serve; null or absent: all of them, including ones created later */
  campaignIds?: readonly string[] | null;
  workerId?: string;
  now?: () => number;
  /** a claim not renewed for this long lapses, and its attempt is closed as unknown */
  claimTimeoutMs?: number;
  /** how long a campaign with nothing due waits, at most, before it is asked again (new leads wake it at once) */
  pollIntervalMs?: number;
  predialTimeoutMs?: number;
  /** how long campaign settings are cached; `campaign update` takes effect within this */
  campaignRefreshMs?: number;
  /** calls in a row that could not be placed before the campaign is paused */
  pauseAfter?: number;
  /** calls in flight this worker runs at most, over all its campaigns; absent: only the campaigns' concurrency caps it */
  maxCalls?: number;
}

interface InFlight {
  lead: ClaimedLead;
  campaignId: string;
  abort: AbortController;
  done: Promise<void>;
}

/**
 * Until `woken` resolves or `ms` pass. The timer is referenced on purpose: it
 * is what keeps a dialer process alive while nothing is due (better-sqlite3
 * holds nothing open, and every other timer of the worker is unref'd).
 */
async function wakeOrWait(woken: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([woken, new Promise((r) => (timer = setTimeout(r, ms)))]);
  clearTimeout(timer);
}

const newWorkerId = () => `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;

const HEARTBEAT_MS = 5000;
const RECOVERY_MS = 5000;
/** after a database outage, how long recovery waits: the other dialers' heartbeats (every 5 s) renew their calls first */
const AFTER_OUTAGE_MS = 3 * RECOVERY_MS;
/** a campaign whose every slot is taken (by this worker or others) is asked again this often */
const FULL_POLL_MS = 1000;

export class Dialer {
  readonly workerId: string;
  private readonly store: Store;
  private readonly log: Logger;
  private readonly now: () => number;
  private readonly claimTimeoutMs: number;
  private readonly maxCalls: number;
  private readonly deps: CallDeps;
  private readonly providers: ProviderOptions;
  private readonly inFlight = new Map<number, InFlight>();
  private readonly perCampaign = new Map<string, number>();
  private readonly schedule: Schedule;
  /** claims and recovery wait while this host's clock disagrees with the database's */
  private readonly clock: ClockGuard;
  private readonly campaigns: CampaignCache;
  /** campaigns a call found paused (call.ts) since their settings were last read: nothing more is claimed from them */
  private readonly foundPaused = new Set<string>();
  private stopping = false;
  /** the current claim loop; stop() waits for it before counting calls in flight */
  private claiming: Promise<void> = Promise.resolve();
  private wakeUp: () => void = () => {};
  /** run()'s reader of new leads: it waits while the dialer is at --max-calls */
  private wakeups: Wakeups | null = null;
  private timers: NodeJS.Timeout[] = [];
  private lastClaimAt: number | null = null;
  /** the last heartbeat failed (the database is unreachable), and when the outage last ended: recover() waits after it */
  private heartbeatFailing = false;
  private outageEndedAt = Number.NEGATIVE_INFINITY;
  /** a recovery sweep is running */
  private recovering = false;
  /** when this dialer's claims were last renewed (performance.now(), which runs on while the process is stopped) */
  private renewedAt = performance.now();
  private readonly startedAt: number;
  private readonly summary: RunSummary = { attempts: 0, concluded: 0, deferred: 0, awaiting: 0 };

  constructor(private readonly o: DialerOptions) {
    this.store = o.store;
    this.log = o.logger;
    this.workerId = o.workerId ?? newWorkerId();
    this.now = o.now ?? Date.now;
    this.startedAt = this.now();
    this.claimTimeoutMs = o.claimTimeoutMs ?? 60_000;
    this.maxCalls = o.maxCalls ?? Number.POSITIVE_INFINITY;
    this.schedule = new Schedule(this.store, o.pollIntervalMs ?? 60_000, FULL_POLL_MS);
    this.clock = new ClockGuard(o.store, o.logger);
    const recorder = new AttemptRecorder(o.store, this.now);
    const pacer = new Pacer(o.store.pacing);
    const runs = new NotPlacedRuns(o.store, o.logger, this.now, o.pauseAfter, () => this.campaigns.forget());
    this.deps = {
      store: o.store,
      now: this.now,
      predialTimeoutMs: o.predialTimeoutMs ?? 5000,
      open: (opening) => recorder.open(opening),
      close: (closing) => recorder.close(closing),
      notPlaced: (c, reason, retryAfterMs) => runs.notPlaced(c, reason, retryAfterMs),
      placed: (c) => runs.placed(c),
      pace: (c, signal) => pacer.wait(c.id, c.row.calls_per_second, signal),
    };
    this.providers = {
      simulateDurationMs: o.simulateDurationMs,
      random: o.random,
      sleep: o.sleep,
      publicUrl: o.publicUrl,
      secrets: o.secrets,
      request: o.request,
    };
    this.campaigns = new CampaignCache({
      store: o.store,
      ids: o.campaignIds ?? null,
      providers: this.providers,
      log: o.logger,
      now: this.now,
      refreshMs: o.campaignRefreshMs ?? 2000,
      schedule: this.schedule,
      loaded: () => this.foundPaused.clear(),
    });
  }

  /** Calls everything due now in the served campaigns, waits for those calls, returns. */
  async runOnce(): Promise<RunSummary> {
    // a clock that disagrees with the database's would misjudge other dialers' leases: nothing is done (logged)
    await this.clock.check();
    if (!this.clock.ok) return { ...this.summary };
    // what dead dialers left: their open attempts and lapsed claims
    await this.recover();
    await this.session(async () => {
      // Leads that fall due during the run (a failed call with no retry
      // delay) wait for the next run: "once" means what was due at the start.
      const dueBy = this.now() - 1;
      const campaigns = await this.campaigns.get(true);
      const pending = new Set(campaigns.map((c) => c.id));
      while (pending.size > 0 && !this.stopping) {
        const woken = this.nextWake();
        for (const c of campaigns) {
          if (pending.has(c.id) && (await this.fill(c, dueBy)) !== 'full') pending.delete(c.id);
        }
        // Full: a call of this worker ends (woken), or other dialers' calls free a
        // slot, which nothing here hears of: ask again after a moment.
        if (pending.size > 0) await wakeOrWait(woken, FULL_POLL_MS);
      }
    });
    return { ...this.summary };
  }

  /** Runs until stop(): claims whatever falls due, as slots free up and as new leads arrive. */
  async run(): Promise<void> {
    const wakeups = new Wakeups(
      this.store,
      (ids) => {
        for (const id of ids) this.schedule.wake(id);
        this.wakeUp();
      },
      (err) => this.log.error({ err }, 'dialer: reading new leads failed; campaigns are still polled'),
      () => this.inFlight.size >= this.maxCalls,
    );
    this.wakeups = wakeups;
    await wakeups.start();
    this.every(HEARTBEAT_MS, () => this.heartbeat());
    this.every(RECOVERY_MS, () => this.recover());
    await this.heartbeat();
    try {
      await this.session(async () => {
        // the list the last pass walked, and whether it left work undone ('more', or a failure)
        let walked: readonly DialerCampaign[] | null = null;
        while (!this.stopping) {
          const woken = this.nextWake();
          let until = this.now() + FULL_POLL_MS;
          try {
            const list = await this.campaigns.get(false);
            // A wake-up only to check the campaigns (campaign-cache.ts) that found them unchanged,
            // with nothing due or woken, skips the walk: over 10,000 campaigns, one every two
            // seconds more than doubled an idle dialer's CPU.
            const idle: boolean = list === walked && this.schedule.nextCheck(this.now()) > this.now();
            const more: 'done' | 'more' = idle
              ? 'done'
              : await this.schedule.pass(list, (c) => this.fill(c), { now: () => this.now(), stopping: () => this.stopping });
            walked = more === 'done' ? list : null;
            // no longer than the campaigns' refresh: a settings change must reach an idle or closed campaign
            until = more === 'more' ? this.now() : Math.min(this.schedule.nextCheck(this.now()), this.campaigns.refreshAt());
          } catch (err) {
            // The database is down or refused a statement: keep the calls in
            // flight going, and try again soon.
            this.log.error({ err }, 'dialer: claiming failed; retrying');
            walked = null;
          }
          await wakeOrWait(woken, Math.max(10, until - this.now()));
        }
      });
    } finally {
      for (const t of this.timers.splice(0)) clearInterval(t);
      await wakeups.stop();
      await this.store.dialers.remove(this.workerId).catch(() => {});
    }
  }

  /**
   * Stops claiming, gives calls in flight up to graceMs to finish, then hangs
   * up the rest: a call cut short was placed, so it is recorded as an attempt.
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
      this.log.warn({ calls: this.inFlight.size }, 'dialer: grace period over; hanging up calls still in flight');
      for (const f of this.inFlight.values()) f.abort.abort('shutdown');
      await all();
    }
  }

  get callsInFlight(): number {
    return this.inFlight.size;
  }

  /** Runs a claim loop; returns once it has ended and every call it started is over. */
  private async session(loop: () => Promise<void>): Promise<void> {
    const renewing = setInterval(
      () =>
        void this.renew().catch((err) =>
          this.log.error({ err }, 'dialer: renewing claims failed; they lapse at their timeout unless a later renewal succeeds'),
        ),
      Math.max(50, Math.floor(this.claimTimeoutMs / 3)),
    );
    renewing.unref();
    const claiming = loop();
    this.claiming = claiming.catch(() => {});
    try {
      await claiming;
    } finally {
      // Also when a claim failed: the calls already started are seen
      // through, with their claims renewed until the last one is over.
      while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight.values()].map((f) => f.done));
      clearInterval(renewing);
    }
  }

  /** Claims into the campaign's free slots. 'full': slots are full; 'idle': nothing (more) is due; 'closed': outside calling hours or paused. */
  private async fill(c: DialerCampaign, dueBy?: number): Promise<'full' | 'idle' | 'closed'> {
    if (c.row.paused_at !== null || this.foundPaused.has(c.id) || !isOpen(c.hours, c.timezone, new Date(this.now()))) return 'closed';
    // while the clocks disagree, as if every slot were taken: asked again every FULL_POLL_MS, no statement run
    if (!this.clock.ok) return 'full';
    for (;;) {
      // This worker's share: what the campaign allows beside its own calls, and
      // what --max-calls leaves. Without the cap the first of several dialers to
      // claim takes every free slot, and the others only find the campaign full.
      const free = Math.min(c.row.concurrency - (this.perCampaign.get(c.id) ?? 0), this.maxCalls - this.inFlight.size);
      if (free <= 0) return 'full';
      if (this.stopping) return 'idle';
      const now = this.now();
      const {
        leads,
        free: campaignFree,
        awaiting,
      } = await claimDueFree(this.store, {
        campaignId: c.id,
        maxAttempts: c.row.max_attempts,
        workerId: this.workerId,
        limit: free,
        concurrency: c.row.concurrency,
        now,
        dueBy,
        leaseMs: this.claimTimeoutMs,
        local: localOf(c),
      });
      if (leads.length > 0) this.lastClaimAt = now;
      if (this.stopping) {
        // stop() came while this claim was on its way: give the leads back untouched.
        await Promise.all(leads.map((lead) => this.store.queue.release(lead, { now: this.now() })));
        return 'idle';
      }
      for (const lead of leads) {
        if (this.inFlight.has(lead.seq)) await this.holdBack(lead);
        else this.launch(c, lead);
      }
      // fewer than the slots free campaign-wide: nothing more is due now
      if (leads.length < Math.min(free, campaignFree)) return 'idle';
      if (leads.length < free) {
        // the campaign's other slots are held: by other dialers' live calls (ask
        // again when one may have ended), or by outcomes awaited from a provider
        // (their reports wake the dialer; nothing to ask before)
        const live = c.row.concurrency - (this.perCampaign.get(c.id) ?? 0) - awaiting;
        return live > 0 ? 'full' : 'idle';
      }
    }
  }

  /**
   * A lead claimed again while this dialer's own call to it still runs on a claim it lost: it
   * stalled past its lease, recovery closed that call's attempt as unknown, and the lead fell due
   * again. A second call would ring the person while the first may still be on the line, so that
   * call is hung up (as a lost claim is at renewal) and the new claim given back for a moment.
   */
  private async holdBack(lead: ClaimedLead): Promise<void> {
    this.log.warn({ campaignId: lead.campaignId, leadId: lead.id }, 'dialer: lost the claim of a call in flight; hanging up');
    this.inFlight.get(lead.seq)!.abort.abort('claim lost');
    const now = this.now();
    await this.store.queue.release(lead, { now, until: new Date(now + FULL_POLL_MS).toISOString() });
  }

  private launch(c: DialerCampaign, lead: ClaimedLead): void {
    const entry: InFlight = { lead, campaignId: c.id, abort: new AbortController(), done: Promise.resolve() };
    this.inFlight.set(lead.seq, entry);
    this.perCampaign.set(c.id, (this.perCampaign.get(c.id) ?? 0) + 1);
    entry.done = this.dial(c, lead, entry.abort);
  }

  private async dial(c: DialerCampaign, lead: ClaimedLead, abort: AbortController): Promise<void> {
    const started = this.now();
    const progress: CallProgress = { attemptOpened: false };
    try {
      const outcome = await dialLead(this.deps, c, lead, abort.signal, progress);
      logOutcome(this.log, this.summary, lead, outcome, this.now() - started);
      if (outcome.kind === 'released' && outcome.why === 'paused') {
        // The settings held here predate the pause: without this the lead would be claimed
        // again at once, to wait for another slot and be given back again.
        this.foundPaused.add(c.id);
        this.campaigns.forget();
      }
    } catch (err) {
      const ids = { err, campaignId: lead.campaignId, leadId: lead.id };
      if (progress.attemptOpened) {
        // The attempt is written, so the call may have been placed (a failed close or accept, say):
        // giving the lead back would undo it (raw again, the call not counted, the next one
        // reusing its attempt number). Its lease is ended instead (or, if that fails too, lapses
        // at its timeout); recovery then closes the attempt as `unknown`, counted, and the lead
        // waits its retry delay.
        this.log.error(ids, 'dialer: recording the call failed; recovery closes its attempt as unknown');
        await this.store.queue.lapse(lead, this.now()).catch(() => {});
        return;
      }
      this.log.error(ids, 'dialer: call failed before its attempt was written; releasing the lead');
      // If this fails too, the claim lapses at its timeout and recovery gives the lead back (releaseExpired).
      await this.store.queue.release(lead, { now: this.now() }).catch(() => {});
    } finally {
      // only its own entry: the lead may be claimed again meanwhile (holdBack)
      if (this.inFlight.get(lead.seq)?.lead === lead) this.inFlight.delete(lead.seq);
      this.perCampaign.set(c.id, (this.perCampaign.get(c.id) ?? 1) - 1);
      this.schedule.wake(c.id);
      this.wakeups?.resume();
      this.wakeUp();
    }
  }

  private nextWake(): Promise<void> {
    return new Promise((resolve) => (this.wakeUp = resolve));
  }

  /** runs fn every `ms` while the worker runs; its failures are logged, never thrown */
  private every(ms: number, fn: () => Promise<unknown>): void {
    const timer = setInterval(() => void fn().catch((err) => this.log.error({ err }, 'dialer: background task failed; it runs again')), ms);
    timer.unref();
    this.timers.push(timer);
  }

  private async renew(): Promise<void> {
    await renewCalls(this.store, this.log, this.workerId, this.inFlight, this.now() + this.claimTimeoutMs);
    this.renewedAt = performance.now();
  }

  private async recover(): Promise<void> {
    // on a clock that disagrees, other dialers' live leases would look lapsed and their calls be closed as unknown
    if (!this.clock.ok) return;
    // After a database outage longer than the leases every call in flight looks lapsed, this
    // dialer's and the others': nothing is swept until this dialer's heartbeat has worked again
    // (which renews its own calls first) and AFTER_OUTAGE_MS have passed (the other dialers'
    // heartbeats renew theirs). Swept at once, calls that went on through the outage were
    // closed as unknown, then hung up by the next renewal.
    if (this.heartbeatFailing || performance.now() - this.outageEndedAt < AFTER_OUTAGE_MS) return;
    // one sweep at a time: a slow platform lookup (up to 15 s) would otherwise have the next ones ask again
    if (this.recovering) return;
    this.recovering = true;
    try {
      // A renewal overdue (the process was paused, the host suspended) leaves this dialer's own
      // live calls looking lapsed: renewed first, or the sweep would close them as unknown.
      if (performance.now() - this.renewedAt > this.claimTimeoutMs / 3 + RECOVERY_MS) await this.renew();
      const { campaignIds } = await recoverStale(this.store, this.now(), this.log, reconciler(this.store, this.providers, this.log));
      for (const id of campaignIds) this.schedule.wake(id);
      if (campaignIds.size > 0) this.wakeUp();
    } finally {
      this.recovering = false;
    }
  }

  private async heartbeat(): Promise<void> {
    try {
      await this.beat();
    } catch (err) {
      this.heartbeatFailing = true;
      throw err;
    }
    if (this.heartbeatFailing) {
      // the database answers again: this dialer's own calls are renewed before anything is swept
      await this.renew();
      this.heartbeatFailing = false;
      this.outageEndedAt = performance.now();
    }
  }

  private async beat(): Promise<void> {
    // the clock is compared with each beat: claims stop within a beat of the clocks drifting apart, and resume as soon
    await this.clock.check();
    await heartbeat(this.store, {
      id: this.workerId,
      campaignIds: this.o.campaignIds ?? null,
      startedAt: this.startedAt,
      now: this.now(),
      callsInFlight: this.inFlight.size,
      lastClaimAt: this.lastClaimAt,
    });
  }
}
