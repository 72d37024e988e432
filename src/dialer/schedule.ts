/**
 * When each campaign is asked for due leads again, so that an idle dialer
 * costs little whatever the number of campaigns: a campaign with nothing due
 * waits until its next lead falls due (the store's nextDue), its calling hours
 * open, the set of zones inside its local window changes, or new leads wake
 * it (wakeups.ts); at the latest after the idle poll, as a safety net.
 */
import { isOpen, nextOpen } from '../scheduling/hours.js';
import type { Store } from '../store/index.js';
import type { DialerCampaign } from './campaign.js';
import { alwaysOpen, openZoneSets } from './local-zones.js';

const MINUTE = 60_000;
/** the idle poll's checks in one pass take at most this; then the campaigns woken meanwhile are asked */
const CHECK_SLICE_MS = 100;
/**
 * campaigns checked in one statement (nextDueMany): over 10,000 campaigns a
 * statement each was 167 a second from an idle dialer, most of its CPU
 */
const CHECK_BATCH = 500;

export class Schedule {
  private readonly next = new Map<string, number>();
  /** per campaign: the zone sets open at its last idle check */
  private readonly zones = new Map<string, string>();
  /** campaigns whose next check is the idle poll alone: nothing was known to fall due before it */
  private readonly polled = new Set<string>();
  /** per campaign, the number of the last wake (of all campaigns' wakes, counted in `wakes`) */
  private readonly woken = new Map<string, number>();
  private wakes = 0;

  constructor(
    private readonly store: Store,
    private readonly idleMs: number,
    private readonly fullMs: number,
    /** campaigns checked in one statement (tests make it small, to see the slice end between statements) */
    private readonly checkBatch = CHECK_BATCH,
  ) {}

  wake(campaignId: string): void {
    this.next.set(campaignId, 0);
    this.polled.delete(campaignId);
    this.woken.set(campaignId, ++this.wakes);
  }

  /**
   * Before asking a campaign whose check is only the idle poll's safety net:
   * one statement (the earliest due time of all) says whether anything is
   * due; when nothing is, the campaign waits again without a claim. A claim
   * is a transaction of several statements, and over thousands of idle
   * campaigns the poll was most of an idle dialer's work. A campaign seen
   * for the first time is checked the same way.
   * true: ask it now.
   */
  async pollFinds(c: DialerCampaign, now: number): Promise<boolean> {
    if (this.asksNow(c)) return true;
    return this.found(c, await this.store.queue.nextDue(c.id, null), now);
  }

  /** pollFinds, given the campaign's earliest due time of all */
  private found(c: DialerCampaign, first: number | null, now: number): boolean {
    if (first !== null && first <= now) return true;
    const at = first === null ? now + this.idleMs : Math.min(now + this.idleMs, first);
    this.next.set(c.id, at);
    // the next check is the poll's again, unless a lead falls due before it
    if (at === now + this.idleMs) this.polled.add(c.id);
    else this.polled.delete(c.id);
    return false;
  }

  /**
   * One pass over the campaigns: each woken campaign, or one whose known due
   * time has come, is asked (`ask` claims and calls); then at most
   * CHECK_SLICE_MS goes to the idle poll's one-statement checks, and the
   * campaigns left unchecked stay due for the next pass ('more': pass again
   * at once). Over 10,000
   * campaigns the poll's checks take seconds; run in one go they held up a
   * lead that fell due meanwhile by as long (bench/scale.js measured 10 s).
   */
  async pass(
    list: readonly DialerCampaign[],
    ask: (c: DialerCampaign) => Promise<'full' | 'idle' | 'closed'>,
    o: { now: () => number; stopping: () => boolean },
  ): Promise<'done' | 'more'> {
    const checks: DialerCampaign[] = [];
    for (const c of list) {
      if (o.stopping()) return 'done';
      if (!(await this.isDue(c, o.now()))) continue;
      if (this.asksNow(c)) await this.askAndAfter(c, ask, o.now);
      else checks.push(c);
    }
    const end = o.now() + CHECK_SLICE_MS;
    for (let i = 0; i < checks.length; i += this.checkBatch) {
      if (o.stopping()) return 'done';
      // campaigns never asked have no next check to wait for: 'more' says to pass again at once
      if (o.now() >= end) return 'more';
      const batch = checks.slice(i, i + this.checkBatch);
      const firsts = await this.store.queue.nextDueMany(batch.map((c) => c.id));
      for (const c of batch) {
        if (o.stopping()) return 'done';
        // a campaign woken while the batch was read (a call of it ended) is asked: its wake is not undone
        if (this.asksNow(c) || this.found(c, firsts.get(c.id) ?? null, o.now())) await this.askAndAfter(c, ask, o.now);
      }
    }
    return 'done';
  }

  /** woken, or waiting for a known due time: asked without the check. Never asked (not in next), or polled: checked first */
  private asksNow(c: DialerCampaign): boolean {
    return !this.polled.has(c.id) && this.next.has(c.id);
  }

  private async openZones(c: DialerCampaign, now: number): Promise<string | null> {
    if (alwaysOpen(c.localWindow) && !c.closedDates) return null;
    return (await openZoneSets(this.store, c.localWindow, c.row.local_window, c.timezone, now, c.closedDates)).join(',');
  }

  /** true when the campaign should be asked now */
  async isDue(c: DialerCampaign, now: number): Promise<boolean> {
    if ((this.next.get(c.id) ?? 0) <= now) return true;
    const before = this.zones.get(c.id);
    if (before === undefined) return false;
    return (await this.openZones(c, now)) !== before;
  }

  /**
   * Asks, then decides when to ask again from what falls due after the asking began: a lead
   * that fell due while the claim ran (after its statement read the due leads) is asked for at
   * once. Read from the end of the asking, it was in neither answer, and waited for the idle
   * poll (a minute by default).
   */
  private async askAndAfter(c: DialerCampaign, ask: (c: DialerCampaign) => Promise<'full' | 'idle' | 'closed'>, now: () => number) {
    const askedAt = now();
    const mark = this.wakes;
    const result = await ask(c);
    await this.after(c, result, now(), askedAt);
    // Woken while it was asked (a new lead's notice came after the claim read the due leads):
    // asked again, not left to the next check that after() just set, which the wake would not move.
    if ((this.woken.get(c.id) ?? 0) > mark) this.wake(c.id);
  }

  /** after asking: when to ask again (`since`: what falls due after it counts) */
  async after(c: DialerCampaign, result: 'full' | 'idle' | 'closed', now: number, since = now): Promise<void> {
    this.zones.delete(c.id);
    this.polled.delete(c.id);
    let at = now + this.idleMs;
    if (result === 'full') at = now + this.fullMs;
    else if (result === 'closed') {
      if (c.row.paused_at === null && !isOpen(c.hours, c.timezone, new Date(now))) {
        const opens = nextOpen(c.hours, c.timezone, new Date(now));
        if (opens) at = Math.min(at, opens.getTime());
      }
    } else {
      const due = await this.store.queue.nextDue(c.id, since);
      if (due !== null) at = Math.min(at, Math.max(due, now + 1));
      if (at === now + this.idleMs) this.polled.add(c.id);
      const zones = await this.openZones(c, now);
      if (zones !== null) this.zones.set(c.id, zones);
    }
    this.next.set(c.id, at);
  }

  /** the next instant any campaign needs asking (at least every minute while a local window may change) */
  nextCheck(now: number): number {
    let at = now + this.idleMs;
    for (const t of this.next.values()) at = Math.min(at, t);
    if (this.zones.size > 0) at = Math.min(at, (Math.floor(now / MINUTE) + 1) * MINUTE);
    return at;
  }

  /**
   * Campaigns whose settings changed since the last refresh are asked again
   * at once. A campaign not seen before is not woken: it has no next check
   * yet, so it is due, and pollFinds asks it with one statement. Waking
   * every campaign of the first load made a dialer's first pass a claim
   * transaction per campaign: minutes over 10,000 idle campaigns, during
   * which due leads waited.
   */
  refreshed(list: readonly DialerCampaign[], previous: readonly DialerCampaign[]): void {
    const before = new Map(previous.map((c) => [c.id, c.row]));
    for (const c of list) {
      const old = before.get(c.id);
      // a row unchanged since the last load is the same object (loadDialerCampaigns reuses it)
      if (old && old !== c.row && JSON.stringify(old) !== JSON.stringify(c.row)) this.wake(c.id);
    }
  }
}
