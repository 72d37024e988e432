/**
 * A database outage longer than the claims' leases: when the database answers again, a dialer
 * sweeps nothing until its heartbeat works again (which renews its own calls in flight) and a
 * moment has passed for the other dialers' heartbeats to renew theirs, so a call that went on
 * through the outage is not closed as unknown (and then hung up) while it goes on.
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { Dialer } from '../../src/dialer/worker.js';
import type { Store } from '../../src/store/index.js';
import { availableStores, useStore } from '../helpers/db.js';
import { attemptRows, leadRow, makeCampaign, seedLeads } from './support.js';

const silent = pino({ level: 'silent' });
const T0 = Date.parse('2026-03-10T14:00:00.000Z');

describe.each(await availableStores())('a database outage longer than the leases on %s', (kind) => {
  let db: Store;
  useStore(kind, (opened) => {
    db = opened;
  });

  it("the dialer's own recovery does not close its calls in flight as unknown", async () => {
    const campaignId = await makeCampaign(db);
    const [leadId] = await seedLeads(db, campaignId, [{}]);
    // the store as the dialer sees it: every statement of these parts refused while the database is down
    let down = false;
    const reachable = <T extends object>(part: T): T =>
      new Proxy(part, {
        get(target, key) {
          const value = Reflect.get(target, key);
          if (typeof value !== 'function') return value;
          return (...args: unknown[]) =>
            down ? Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:5432')) : value.apply(target, args);
        },
      });
    const store: Store = { ...db, queue: reachable(db.queue), dialers: reachable(db.dialers), campaigns: reachable(db.campaigns) };
    let clock = T0;
    const calls: { signal: AbortSignal; end: () => void }[] = [];
    const w = new Dialer({
      store,
      logger: silent,
      campaignIds: [campaignId],
      now: () => clock,
      random: () => 0,
      simulateDurationMs: [1000, 1000],
      sleep: (_ms, signal) =>
        new Promise<void>((resolve) => {
          calls.push({ signal, end: resolve });
          signal.addEventListener('abort', () => resolve(), { once: true });
        }),
      claimTimeoutMs: 60_000,
    });
    const running = w.run();
    const internals = w as unknown as { heartbeat(): Promise<void>; recover(): Promise<void> };
    try {
      while (calls.length === 0) await new Promise((r) => setTimeout(r, 5));
      // the database goes away for 70 s, longer than the call's 60 s lease: heartbeats fail
      down = true;
      clock = T0 + 70_000;
      await expect(internals.heartbeat()).rejects.toThrow('ECONNREFUSED');
      // it answers again; the first thing to run is the dialer's recovery: it waits for a heartbeat
      down = false;
      await internals.recover();
      expect(await attemptRows(db, leadId!)).toMatchObject([{ state: 'open', outcome: null }]);
      // the heartbeat works again and renews the dialer's own calls; recovery still waits a moment for the others'
      await internals.heartbeat();
      await internals.recover();
      expect(await attemptRows(db, leadId!)).toMatchObject([{ state: 'open', outcome: null }]);
      expect(await leadRow(db, leadId!)).toMatchObject({ claimed_by: w.workerId });
      expect(Date.parse((await leadRow(db, leadId!))!.next_attempt_at!)).toBe(clock + 60_000);
      expect(calls[0]!.signal.aborted).toBe(false);
      // the call ends as calls do, and is recorded
      calls[0]!.end();
      while (w.callsInFlight > 0) await new Promise((r) => setTimeout(r, 5));
      expect(await attemptRows(db, leadId!)).toMatchObject([{ state: 'closed', closed_by: 'dialer', outcome: 'answered' }]);
    } finally {
      for (const c of calls) c.end();
      await w.stop(1000);
      await running;
    }
  });

  it('a dialer whose process was paused past its leases renews its own calls before its recovery sweeps', async () => {
    const campaignId = await makeCampaign(db);
    const [leadId] = await seedLeads(db, campaignId, [{}]);
    let clock = T0;
    const calls: { signal: AbortSignal; end: () => void }[] = [];
    const w = new Dialer({
      store: db,
      logger: silent,
      campaignIds: [campaignId],
      now: () => clock,
      random: () => 0,
      simulateDurationMs: [1000, 1000],
      sleep: (_ms, signal) =>
        new Promise<void>((resolve) => {
          calls.push({ signal, end: resolve });
          signal.addEventListener('abort', () => resolve(), { once: true });
        }),
      claimTimeoutMs: 60_000,
    });
    const running = w.run();
    const internals = w as unknown as { recover(): Promise<void>; renewedAt: number };
    try {
      while (calls.length === 0) await new Promise((r) => setTimeout(r, 5));
      // SIGSTOP or a suspended host for 70 s: the leases lapsed, and the last renewal is long past
      clock = T0 + 70_000;
      internals.renewedAt -= 70_000;
      await internals.recover();
      expect(await attemptRows(db, leadId!)).toMatchObject([{ state: 'open', outcome: null }]);
      expect(Date.parse((await leadRow(db, leadId!))!.next_attempt_at!)).toBe(clock + 60_000);
      expect(calls[0]!.signal.aborted).toBe(false);
    } finally {
      for (const c of calls) c.end();
      await w.stop(1000);
      await running;
    }
  });
});
