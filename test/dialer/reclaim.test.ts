/**
 * A dialer that stalled past its lease mid-call, whose call's attempt another dialer's recovery
 * closed, and which then claims the same lead again (a retry delay of 0): it hangs the first call
 * up and does not ring the person a second time while the first may still be on the line; once
 * that call is over, the lead is called again and followed as usual. docs/dialer.md.
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { recoverStale } from '../../src/dialer/recovery.js';
import { Dialer } from '../../src/dialer/worker.js';
import type { Store } from '../../src/store/index.js';
import { availableStores, useStore } from '../helpers/db.js';
import { attemptRows, makeCampaign, seedLeads } from './support.js';

const silent = pino({ level: 'silent' });
const T0 = Date.parse('2026-03-10T14:00:00.000Z');

const until = async (what: string, test: () => boolean, timeoutMs = 10_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!test()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
};

describe.each(await availableStores())('a lead claimed again while its call still runs on %s', (kind) => {
  let db: Store;
  useStore(kind, (opened) => {
    db = opened;
  });

  it('hangs the first call up, and calls again only once it is over', async () => {
    const campaignId = await makeCampaign(db, { concurrency: 2, max_attempts: 2, retry_delay_ms: 0 });
    const [leadId] = await seedLeads(db, campaignId, [{}]);
    let clock = T0;
    // each simulated call rings until the test ends it, or the dialer hangs it up
    const calls: { signal: AbortSignal; end: () => void }[] = [];
    const sleep = (_ms: number, signal: AbortSignal) =>
      new Promise<void>((resolve) => {
        calls.push({ signal, end: resolve });
        signal.addEventListener('abort', () => resolve(), { once: true });
      });
    const w = new Dialer({
      store: db,
      logger: silent,
      campaignIds: [campaignId],
      now: () => clock,
      random: () => 0.99,
      simulateDurationMs: [1000, 1000],
      sleep,
      claimTimeoutMs: 60_000,
      pollIntervalMs: 100,
    });
    const running = w.run();
    try {
      await until('the first call', () => calls.length === 1);
      // the dialer stalls past its lease; another dialer's recovery closes the call's attempt, and the lead is due at once
      clock = T0 + 61_000;
      expect((await recoverStale(db, clock, silent)).count).toBe(1);
      await until('the first call hung up, or a second placed', () => calls[0]!.signal.aborted || calls.length > 1);
      expect(calls).toHaveLength(1);
      expect(calls[0]!.signal.reason).toBe('claim lost');
      await until('the first call over', () => w.callsInFlight === 0);
      // a moment later the lead is called again, and this call is followed (renewed, waited for on stop);
      // the clock runs from here as time does: the dialer waits for instants after now, which a
      // stopped clock never reaches
      await until('the second call', () => {
        clock += 50;
        return calls.length === 2;
      });
      expect(clock).toBeGreaterThanOrEqual(T0 + 62_000);
      expect(calls[1]!.signal.aborted).toBe(false);
      expect(w.callsInFlight).toBe(1);
      expect(await attemptRows(db, leadId!)).toMatchObject([
        { attempt: 1, state: 'closed', closed_by: 'recovery', outcome: 'unknown' },
        { attempt: 2, state: 'open' },
      ]);
      calls[1]!.end();
      await until('the second call over', () => w.callsInFlight === 0);
    } finally {
      for (const c of calls) c.end();
      await w.stop(1000);
      await running;
    }
  });
});
