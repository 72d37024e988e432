/**
 * --max-calls: a worker's own cap on its calls in flight, under the
 * campaign's concurrency. Two workers on one campaign whose concurrency
 * could hold all its leads at once each keep to their cap, and between them
 * call every lead once; without a cap the first to claim takes every slot.
 * The last test starts the compiled CLI, so the option reaches the worker.
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/index.js';
import { Dialer } from '../../src/dialer/worker.js';
import { availableStores, createTestStore, useStore } from '../helpers/db.js';
import { cli } from './dialer-process.js';
import { ALLOW_STUBS, startStub } from './http-stub.js';
import { attemptRows, makeCampaign, seedLeads } from './support.js';

const silent = pino({ level: 'silent' });
const now = Date.parse('2026-03-10T14:00:00Z');

describe.each(await availableStores())('dialer --max-calls on %s', (kind) => {
  let db: Store;
  useStore(kind, (opened) => {
    db = opened;
  });

  /** a simulated call that lasts long enough for the calls started together to overlap; counts this worker's calls at once */
  const counter = () => {
    const seen = { running: 0, most: 0, calls: 0 };
    const sleep = async () => {
      seen.running++;
      seen.calls++;
      seen.most = Math.max(seen.most, seen.running);
      await new Promise((r) => setTimeout(r, 60));
      seen.running--;
    };
    return { seen, sleep };
  };
  const worker = (c: string, sleep: () => Promise<void>, maxCalls?: number) =>
    new Dialer({ store: db, logger: silent, campaignIds: [c], now: () => now, random: () => 0, sleep, maxCalls });

  it('two workers with --max-calls 2 on a campaign of concurrency 8 each run at most 2 calls, and call every lead once', async () => {
    const c = await makeCampaign(db, { concurrency: 8 });
    const ids = await seedLeads(
      db,
      c,
      Array.from({ length: 12 }, () => ({})),
    );
    const a = counter();
    const b = counter();
    const runs = await Promise.all([worker(c, a.sleep, 2).runOnce(), worker(c, b.sleep, 2).runOnce()]);
    expect(runs[0]!.attempts + runs[1]!.attempts).toBe(12);
    expect(a.seen.most).toBe(2);
    expect(b.seen.most).toBe(2);
    expect(a.seen.calls + b.seen.calls).toBe(12);
    for (const id of ids) expect(await attemptRows(db, id)).toHaveLength(1);
  });

  it('the cap counts the calls of all its campaigns together', async () => {
    const c1 = await makeCampaign(db, { concurrency: 5 });
    const c2 = await makeCampaign(db, { concurrency: 5 });
    await seedLeads(
      db,
      c1,
      Array.from({ length: 4 }, () => ({})),
    );
    await seedLeads(
      db,
      c2,
      Array.from({ length: 4 }, () => ({})),
    );
    const a = counter();
    const w = new Dialer({
      store: db,
      logger: silent,
      campaignIds: [c1, c2],
      now: () => now,
      random: () => 0,
      sleep: a.sleep,
      maxCalls: 3,
    });
    expect(await w.runOnce()).toMatchObject({ attempts: 8 });
    expect(a.seen.most).toBe(3);
  });

  it('without a cap a worker fills every free slot of the campaign', async () => {
    const c = await makeCampaign(db, { concurrency: 8 });
    await seedLeads(
      db,
      c,
      Array.from({ length: 8 }, () => ({})),
    );
    const a = counter();
    expect(await worker(c, a.sleep).runOnce()).toMatchObject({ attempts: 8 });
    expect(a.seen.most).toBe(8);
  });
});

describe('leadline dialer --max-calls, the process', () => {
  it('a worker started with --max-calls 2 never has more than 2 calls at the provider', async () => {
    const store = await createTestStore('sqlite');
    const db = await store.open();
    const seen = { running: 0, most: 0, calls: 0 };
    const phone = await startStub(null, async () => {
      seen.running++;
      seen.calls++;
      seen.most = Math.max(seen.most, seen.running);
      await new Promise((r) => setTimeout(r, 100));
      seen.running--;
      return { body: { success: true, outcome: 'answered' } };
    });
    try {
      const c = await makeCampaign(db, { provider: 'webhook', provider_url: phone.url, concurrency: 8 });
      await seedLeads(
        db,
        c,
        Array.from({ length: 6 }, () => ({})),
      );
      const run = await cli(['dialer', '--once', '--campaign', c, '--max-calls', '2'], { DATABASE_URL: store.url, ...ALLOW_STUBS });
      expect(run.code, run.stderr).toBe(0);
      expect(seen.calls).toBe(6);
      expect(seen.most).toBe(2);
    } finally {
      await phone.close();
      await db.close();
      await store.drop();
    }
  });
});
