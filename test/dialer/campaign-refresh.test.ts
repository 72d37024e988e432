/**
 * A running dialer reads its campaigns again every campaignRefreshMs, so a
 * change made around leadline (an operator's UPDATE in psql) takes effect
 * too. (A fingerprint that spared the reads when nothing changed was tried
 * and measured: an idle dialer over 10,000 campaigns used 0.5% of a core
 * with it and without it, so it was taken out again. It came back, migration
 * 0023, when an idle dialer began checking its campaigns every refresh:
 * src/dialer/campaign-cache.ts.) And a dialer with nothing to do hears of a
 * change too: `leadline campaign update` opening a closed campaign's hours.
 */
import { sql } from 'kysely';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { Dialer } from '../../src/dialer/worker.js';
import type { Store } from '../../src/store/index.js';
import { availableStores, useStore } from '../helpers/db.js';
import { ALWAYS, type Rig, rig, sleep as pause, until } from './sqlite-rig.js';
import { leadRow, makeCampaign, seedLeads } from './support.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each(await availableStores())('campaign refresh on %s', (kind) => {
  let db: Store;
  useStore(kind, (opened) => {
    db = opened;
  });

  it('a running dialer sees a pause written around leadline, and calls nothing of the campaign', async () => {
    const c = await makeCampaign(db);
    const w = new Dialer({
      store: db,
      logger: pino({ level: 'silent' }),
      campaignIds: [c],
      random: () => 0,
      pollIntervalMs: 20,
      campaignRefreshMs: 20,
    });
    const running = w.run();
    try {
      const [first] = await seedLeads(db, c, [{}]);
      const deadline = Date.now() + 5000;
      while ((await leadRow(db, first!))!.status !== 'concluded' && Date.now() < deadline) await sleep(10);
      expect((await leadRow(db, first!))!.status).toBe('concluded');
      await sql`update campaigns set paused_at = ${Date.now()}, paused_reason = 'by hand' where id = ${c}`.execute(db.kysely);
      // a few refreshes
      await sleep(200);
      const [id] = await seedLeads(db, c, [{}]);
      await sleep(300);
      expect((await leadRow(db, id!))!.status).toBe('raw');
    } finally {
      await w.stop(1000);
      await running;
    }
  });
});

/** A real `leadline dialer` on SQLite, idle, and a settings change made by another process. */
describe('a running dialer process on SQLite', { timeout: 60_000 }, () => {
  let r: Rig | undefined;
  afterEach(async () => {
    await r?.close();
    r = undefined;
  });

  it('calls within 2 s of `leadline campaign update` opening the calling hours (docs/dialer.md: "picks up a change within 2 seconds")', async () => {
    r = await rig();
    const campaignId = await r.campaign([...ALWAYS, '--hours', 'never']);
    const server = await r.serve();
    const dialer = r.dialer(['--campaign', campaignId]);
    await dialer.waitFor((l) => l.msg === 'dialer started');
    expect(await r.createLead(server, { campaignId, phoneNumber: '+13125550101' })).toBe(201);
    // the dialer hears of the lead and finds its campaign closed
    await pause(3000);
    expect(r.attempts(campaignId)).toBe(0);

    await r.json(['campaign', 'update', campaignId, '--hours', 'mon-sun 00:00-24:00']);
    const updated = Date.now();
    const waited = await until('the first call', () => r!.attempts(campaignId) > 0, 20_000).catch(() => Date.now() - updated);
    // it waited for the idle poll (about a minute) before a running dialer checked its campaigns every refresh
    expect(waited).toBeLessThan(5000);
  });
});
