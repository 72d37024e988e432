/**
 * A dialer at its --max-calls puts off reading events (wakeups.ts); when a call ends it must
 * notice a lead that arrived meanwhile in another campaign at once, not at the 60 s poll.
 * Written by a review of that change.
 */
import pino from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { Dialer } from '../../src/dialer/worker.js';
import { newId } from '../../src/ids.js';
import { availableStores, createTestStore } from '../helpers/db.js';
import { attemptRows, makeCampaign, seedLeads } from './support.js';

const silent = pino({ level: 'silent' });
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each(await availableStores())('dialer --max-calls wake-ups on %s', (kind) => {
  for (const maxCalls of [1, 2])
    it(`--max-calls ${maxCalls}: a lead added to another campaign while full is called soon after a call ends`, async () => {
      const store = await createTestStore(kind);
      const db = await store.open();
      const api = await store.open();
      let dialer: Dialer | undefined;
      let running: Promise<void> | undefined;
      const releases: (() => void)[] = [];
      try {
        const a = await makeCampaign(db, { concurrency: 5 });
        const b = await makeCampaign(db, { concurrency: 5 });
        await seedLeads(
          db,
          a,
          Array.from({ length: maxCalls }, () => ({})),
        );
        let calls = 0;
        // the first maxCalls calls last until released; later ones 10 ms
        const sleep = async (): Promise<void> => {
          calls++;
          if (calls <= maxCalls) return new Promise<void>((r) => releases.push(r));
          await pause(10);
        };
        dialer = new Dialer({ store: db, logger: silent, campaignIds: [a, b], random: () => 0, sleep, maxCalls });
        running = dialer.run();
        await vi.waitFor(() => expect(releases.length).toBe(maxCalls), { timeout: 5000 });
        // full: a lead comes to campaign b, as the API adds one (with its event)
        const leadId = newId('ld_');
        await api.leads.insertMany(
          b,
          [{ id: leadId, phoneNumber: '+14155557777', externalId: null, metadata: '{}', scheduledFor: null, priority: 0 }],
          Date.now(),
        );
        await pause(800);
        expect(await attemptRows(db, leadId)).toHaveLength(0);
        // one call ends
        releases.shift()!();
        await vi.waitFor(async () => expect(await attemptRows(db, leadId)).toHaveLength(1), { timeout: 5000, interval: 100 });
      } finally {
        for (const r of releases.splice(0)) r();
        const stopping = dialer?.stop(100);
        await stopping;
        await running?.catch(() => {});
        await api.close();
        await db.close();
        await store.drop();
      }
    }, 20_000);
});
