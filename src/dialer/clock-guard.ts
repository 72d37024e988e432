/**
 * Claim leases, --concurrency and recovery are judged on each dialer's own
 * clock (`Date.now()`): a lease is a time written by one dialer and compared
 * by others. Dialers on hosts whose clocks disagree by more than a lease's
 * margin misjudge each other: one whose clock runs minutes fast sees every
 * other dialer's live lease as lapsed, starts a second call on a
 * --concurrency 1 campaign, and its recovery closes another dialer's live call
 * as `unknown`. So, on PostgreSQL (dialers on several hosts), a dialer compares
 * its clock with the database's when it starts and with every heartbeat, and
 * while they disagree by more than MAX_SKEW_MS it claims nothing and recovers
 * nothing (the calls it already runs go on, their claims renewed): when in
 * doubt, no call. It resumes by itself once the clocks agree. SQLite is read
 * by one host, one clock: nothing to compare.
 */
import type { Logger } from 'pino';
import type { Store } from '../store/index.js';

/**
 * The most the clocks may disagree. A lease runs --claim-timeout (60 s by
 * default) and is renewed every third of it, so it has 40 s to spare when it
 * is read; a dialer is live while its heartbeat (every 5 s) is under 15 s old,
 * 10 s to spare. 2 s is a small part of either, so a dialer within it never
 * takes another's live lease or heartbeat for a lapsed one, and far above what
 * NTP keeps hosts to (milliseconds), so a synchronised host never trips it.
 * With a --claim-timeout of a few seconds the margin shrinks below it: keep
 * the timeout well above 3 × this.
 */
export const MAX_SKEW_MS = 2000;
/** a reading whose round trip took longer than this says too little about the skew: the last verdict stands */
const MAX_ROUND_TRIP_MS = 1000;
/** the error is logged at most this often while the clocks disagree */
const LOG_EVERY_MS = 60_000;

export class ClockGuard {
  /** null: not read yet (nothing is claimed before the first reading); else the skew last read, ms (database − dialer) */
  private skewMs: number | null = null;
  private loggedAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly store: Store,
    private readonly log: Logger,
    /**
     * The host's clock, which the leases are written on (a dialer's `now` is
     * Date.now outside tests). Not the dialer's injected `now`: tests run
     * dialers on made-up times against a real database.
     */
    private readonly clock: () => number = () => Date.now(),
  ) {}

  /** whether the dialer may claim and recover now */
  get ok(): boolean {
    return this.skewMs !== null && Math.abs(this.skewMs) <= MAX_SKEW_MS;
  }

  /** reads the database's clock and compares; a failed reading leaves the last verdict */
  async check(): Promise<void> {
    const before = this.clock();
    const started = performance.now();
    const db = await this.store.dialers.clock();
    const roundTrip = performance.now() - started;
    if (db === null) {
      this.skewMs = 0;
      return;
    }
    if (roundTrip > MAX_ROUND_TRIP_MS && this.skewMs !== null) return;
    const wasOk = this.ok;
    // the database read its clock about halfway through the round trip
    this.skewMs = Math.round(db - (before + roundTrip / 2));
    if (this.ok) {
      if (!wasOk && Number.isFinite(this.loggedAt))
        this.log.warn({ skewMs: this.skewMs }, 'dialer: clock agrees with the database again; claiming resumes');
      this.loggedAt = Number.NEGATIVE_INFINITY;
      return;
    }
    if (performance.now() - this.loggedAt < LOG_EVERY_MS) return;
    this.loggedAt = performance.now();
    const ahead = this.skewMs < 0 ? 'ahead of' : 'behind';
    this.log.error(
      { skewMs: this.skewMs, maxSkewMs: MAX_SKEW_MS },
      `dialer: this host's clock is ${Math.abs(this.skewMs)} ms ${ahead} the database's; claiming and recovering nothing until they agree ` +
        '(leases and --concurrency are judged on the dialers’ clocks): fix the host’s clock (run NTP: chrony, systemd-timesyncd)',
    );
  }
}
