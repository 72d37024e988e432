/**
 * --calls-per-second: spaces the calls started for a campaign, so that
 * leadline stays under a platform's rate (Twilio starts one call per second
 * by default, and queues the rest). The slots come from the database
 * (src/store/pacing.ts, on its clock), so the cap holds across every dialer
 * process sharing it, as --concurrency does.
 *
 * Within a process a campaign's calls wait in line, and only the first in
 * line holds a reserved slot: a dialer stopped with calls waiting leaves at
 * most one slot unused per campaign (the campaign calls one interval less),
 * not one per waiting call, which at 64 calls and 1 a second would keep every
 * other dialer from calling the campaign for a minute.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { PacingStore } from '../store/pacing.js';

/** resolves when `p` does or `signal` aborts, whichever is first */
function untilAborted(p: Promise<void>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      signal.removeEventListener('abort', done);
      resolve();
    };
    signal.addEventListener('abort', done, { once: true });
    void p.then(done);
  });
}

export class Pacer {
  /** per campaign: the last of this process's calls waiting for a slot; resolves when it has had its slot */
  private readonly lines = new Map<string, Promise<void>>();

  constructor(private readonly pacing: PacingStore) {}

  /**
   * Resolves when a call of the campaign may start (at once, and without a
   * statement, when it has no cap), or when `signal` aborts.
   */
  async wait(campaignId: string, callsPerSecond: number | null, signal: AbortSignal): Promise<void> {
    if (callsPerSecond === null || !(callsPerSecond > 0)) return;
    const ahead = this.lines.get(campaignId) ?? Promise.resolve();
    let leave = () => {};
    const mine = new Promise<void>((resolve) => (leave = resolve));
    const line = ahead.then(() => mine);
    this.lines.set(campaignId, line);
    // forgotten once this call and every one before it had their slots, unless others queued behind
    void line.then(() => this.lines.get(campaignId) === line && this.lines.delete(campaignId));
    try {
      await untilAborted(ahead, signal);
      if (signal.aborted) return;
      // whole ms, rounded up: the spacing may grow by under a millisecond, never shrink
      const waitMs = await this.pacing.reserve(campaignId, Math.ceil(1000 / callsPerSecond));
      if (waitMs > 0) await sleep(waitMs, undefined, { signal }).catch(() => {});
    } finally {
      leave();
    }
  }
}
