/**
 * --calls-per-second: spaces the calls one dialer process starts for a campaign, so that
 * leadline stays under a platform's rate (Twilio starts one call per second by default, and
 * queues the rest). Per process: two dialers serving one campaign may each start that many.
 */
export class Pacer {
  /** per campaign: the earliest instant its next call may start */
  private readonly next = new Map<string, number>();

  constructor(private readonly now: () => number) {}

  /** resolves when a call of the campaign may start (at once when it has no cap), or when `signal` aborts */
  async wait(campaignId: string, callsPerSecond: number | null, signal: AbortSignal): Promise<void> {
    if (callsPerSecond === null || !(callsPerSecond > 0)) return;
    const now = this.now();
    const at = Math.max(now, this.next.get(campaignId) ?? now);
    this.next.set(campaignId, at + 1000 / callsPerSecond);
    if (at <= now) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, at - now);
      function done() {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      }
      signal.addEventListener('abort', done, { once: true });
    });
  }
}
