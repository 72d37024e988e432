/**
 * Speed to lead: a running dialer learns of new leads (and of recycled
 * ones) within moments, without asking every campaign all the time. The
 * database says something changed (Db.watch: LISTEN/NOTIFY on PostgreSQL,
 * `PRAGMA data_version` on SQLite); the events table then says which
 * campaigns (store/events.ts), read from the last row seen on.
 */
import type { EventType } from '../store/events.js';
import type { Store } from '../store/index.js';

/** new leads, recycled ones, and ends of calls (an outcome reported frees a slot) */
const WAKING: readonly EventType[] = ['lead.created', 'lead.status_changed', 'attempt.finished'];
const BATCH = 500;
/**
 * Reads follow each other at least this far apart. Every commit that writes
 * events notifies every dialer, and a busy one (bench row 7: four workers on
 * one campaign) read the events table 0.63 times per call it made, each read a
 * round trip and most of them a claim after it. A notice after a quiet spell
 * is read at once, so an idle dialer's speed to lead is unchanged; in a burst
 * the notices of 20 ms are read together.
 */
export const MIN_GAP_MS = 20;
/**
 * An id skipped by a read is asked for again by the next reads, this long:
 * on PostgreSQL ids are taken when a row is inserted and seen when its
 * transaction commits, so a transaction that took id 10 can commit after
 * one that took 11 has been read. Reading only `id > last` missed it, and
 * its campaign waited for the poll (60 s by default). Most skipped ids are
 * rows still to commit, found by the read their commit's notice starts; the
 * rest (rolled back) are given up after this long. On SQLite, one writer at a
 * time, none is skipped.
 */
const SKIPPED_WAIT_MS = 60_000;
/**
 * While ids are skipped, they are asked for again this often even without a
 * notice: through PgBouncer the change signal is the events table's max(id)
 * (src/db/postgres.ts, pollEvents), which a row committed below it does not move.
 */
const SKIPPED_RECHECK_MS = 250;
/**
 * A read that failed (the database, or the pool's path to it, away) is tried
 * again after this, doubling up to RETRY_MAX_MS: the notice that started it
 * is not sent again, and without a retry the leads it announced waited for
 * the poll (60 s by default) although the database was back within a second.
 */
const RETRY_MS = SKIPPED_RECHECK_MS;
const RETRY_MAX_MS = 2000;
/** at most this many skipped ids are kept, the newest */
const MAX_SKIPPED = 1000;

export class Wakeups {
  private lastId = 0;
  /** ids below lastId not read yet, and when each was first skipped */
  private readonly skipped = new Map<number, number>();
  private stopWatching: (() => Promise<void>) | null = null;
  private reading: Promise<void> | null = null;
  private again = false;
  private lastReadAt = Number.NEGATIVE_INFINITY;
  private timer: NodeJS.Timeout | null = null;
  private recheck: NodeJS.Timeout | null = null;
  private stopped = false;
  /** reads failed in a row: only the first is reported (the claim loop reports the outage too) */
  private failures = 0;
  /** a read was asked for while the dialer could take no call: resume() does it */
  private deferred = false;
  /** when reads were first put off (performance.now) */
  private deferredSince = 0;

  constructor(
    private readonly store: Store,
    /** called with the campaigns that have new or recycled leads */
    private readonly wake: (campaignIds: Set<string>) => void,
    private readonly onError: (err: unknown) => void,
    /**
     * The dialer can take no call now (at its --max-calls): reads wait for resume(). Whatever the
     * events say, it would claim nothing, and a busy dialer read the events table after every
     * commit of every dialer, MIN_GAP_MS apart (bench row 7: one read in five of its statements).
     */
    private readonly full: () => boolean = () => false,
  ) {}

  /** the dialer can take calls again: the read put off meanwhile, now */
  resume(): void {
    if (!this.deferred) return;
    this.deferred = false;
    // The time reads were put off does not count towards a skipped id's wait: a call longer than
    // SKIPPED_WAIT_MS otherwise gave up an id whose transaction had committed meanwhile, unread.
    const putOff = performance.now() - this.deferredSince;
    for (const [id, at] of this.skipped) this.skipped.set(id, at + putOff);
    this.read();
  }

  async start(): Promise<void> {
    const last = await this.store.events.lastId();
    // The ids missing just below the last one may be rows of transactions
    // still open (PostgreSQL): they are skipped ids from the start. The rows
    // there are not read for wake-ups: they were written before this dialer.
    if (last > 0) {
      this.lastId = Math.max(0, last - BATCH);
      this.takeIn((await this.store.events.marks(this.lastId, BATCH)).filter((r) => r.id <= last));
    }
    this.lastId = last;
    this.stopWatching = this.store.watch(() => this.read());
    // what was written between reading the last id and watching
    this.read();
  }

  /** reads the events since the last one seen; one read at a time, and one more if signalled meanwhile (MIN_GAP_MS after) */
  read(): void {
    if (this.stopped) return;
    if (this.full()) {
      if (!this.deferred) this.deferredSince = performance.now();
      this.deferred = true;
      return;
    }
    if (this.reading || this.timer) {
      this.again = true;
      return;
    }
    const wait = this.lastReadAt + MIN_GAP_MS - performance.now();
    if (wait > 0) {
      this.timer = setTimeout(() => {
        this.timer = null;
        this.read();
      }, wait);
      return;
    }
    this.again = false;
    this.lastReadAt = performance.now();
    this.reading = (async () => {
      try {
        let also = this.stillSkipped();
        for (;;) {
          // every type is read, so that the position moves past the attempts' events too
          const rows = await this.store.events.marks(this.lastId, BATCH, also);
          also = [];
          const fresh = this.takeIn(rows);
          const woken = rows.filter((r) => WAKING.includes(r.type) && r.campaign_id !== null);
          if (woken.length > 0) this.wake(new Set(woken.map((r) => r.campaign_id!)));
          if (fresh < BATCH) break;
        }
        this.failures = 0;
      } catch (err) {
        if (this.failures++ === 0) this.onError(err);
      }
      this.reading = null;
      if (this.again) this.read();
      else if ((this.failures > 0 || this.skipped.size > 0) && !this.recheck && !this.stopped) {
        const wait = this.failures > 0 ? Math.min(RETRY_MAX_MS, RETRY_MS * 2 ** (this.failures - 1)) : SKIPPED_RECHECK_MS;
        this.recheck = setTimeout(() => {
          this.recheck = null;
          this.read();
        }, wait);
        this.recheck.unref();
      }
    })();
  }

  /** the skipped ids still waited for (the ones waited for too long forgotten) */
  private stillSkipped(): number[] {
    const since = performance.now() - SKIPPED_WAIT_MS;
    for (const [id, at] of this.skipped) if (at < since) this.skipped.delete(id);
    return [...this.skipped.keys()];
  }

  /** moves the position past the rows read, noting the ids skipped; the number of rows past the old position */
  private takeIn(rows: readonly { id: number }[]): number {
    const now = performance.now();
    let fresh = 0;
    for (const { id } of [...rows].sort((a, b) => a.id - b.id)) {
      if (id <= this.lastId) {
        this.skipped.delete(id);
        continue;
      }
      for (let gap = Math.max(this.lastId + 1, id - MAX_SKIPPED); gap < id; gap++) this.skipped.set(gap, now);
      this.lastId = id;
      fresh++;
    }
    // the oldest go first (a Map keeps insertion order)
    for (const id of this.skipped.keys()) {
      if (this.skipped.size <= MAX_SKIPPED) break;
      this.skipped.delete(id);
    }
    return fresh;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.recheck) clearTimeout(this.recheck);
    this.timer = null;
    this.recheck = null;
    await this.stopWatching?.();
    await this.reading;
  }
}
