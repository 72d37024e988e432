/**
 * How a running dialer learns of campaign changes: the campaigns' fingerprint
 * (store.campaigns.revision, kept by migration 0019's triggers) moves with
 * every change, made by leadline or by an operator's SQL, and the dialer
 * reads the campaign rows again only when it moved.
 */
import { sql } from 'kysely';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { deleteCampaign, updateCampaign } from '../../src/campaigns/service.js';
import { Dialer } from '../../src/dialer/worker.js';
import type { Store } from '../../src/store/index.js';
import { availableStores, useStore } from '../helpers/db.js';
import { leadRow, makeCampaign, seedLeads } from './support.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each(await availableStores())('campaign refresh on %s', (kind) => {
  let db: Store;
  useStore(kind, (opened) => {
    db = opened;
  });

  it('the fingerprint moves on every create, change and delete, and only then', async () => {
    let last = await db.campaigns.revision(null);
    const moved = async () => {
      const before = last;
      last = await db.campaigns.revision(null);
      return last !== before;
    };
    const a = await makeCampaign(db);
    expect(await moved()).toBe(true);
    const b = await makeCampaign(db);
    expect(await moved()).toBe(true);
    // reads, and an update that matches no row (a placed call with no run of failures to end)
    await db.campaigns.list(null);
    await db.campaigns.placed(a);
    expect(await moved()).toBe(false);
    await updateCampaign(db, a, { concurrency: 3 });
    expect(await moved()).toBe(true);
    // around leadline: an operator's UPDATE, on either campaign
    await sql`update campaigns set paused_at = 1, paused_reason = 'by hand' where id = ${b}`.execute(db.kysely);
    expect(await moved()).toBe(true);
    await sql`update campaigns set paused_at = null, paused_reason = null where id = ${b}`.execute(db.kysely);
    expect(await moved()).toBe(true);
    // a deletion and a creation between two reads (the last changed, b, goes)
    await updateCampaign(db, b, { concurrency: 2 });
    await moved();
    await deleteCampaign(db, b);
    await makeCampaign(db);
    expect(await moved()).toBe(true);
    // restricted to some campaigns: a change elsewhere does not move it
    const onlyA = await db.campaigns.revision([a]);
    await makeCampaign(db);
    expect(await db.campaigns.revision([a])).toBe(onlyA);
    await updateCampaign(db, a, { concurrency: 4 });
    expect(await db.campaigns.revision([a])).not.toBe(onlyA);
  });

  it('a running dialer reads its campaigns again only when they changed, and sees a pause written around leadline', async () => {
    const c = await makeCampaign(db);
    let reads = 0;
    const list = db.campaigns.list.bind(db.campaigns);
    db.campaigns.list = (ids) => {
      reads++;
      return list(ids);
    };
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
      await sleep(500);
      // about 25 refreshes: the first load, and none after it while nothing changed
      expect(reads).toBe(1);
      await sql`update campaigns set paused_at = ${Date.now()}, paused_reason = 'by hand' where id = ${c}`.execute(db.kysely);
      const deadline = Date.now() + 5000;
      while (reads < 2 && Date.now() < deadline) await sleep(10);
      expect(reads).toBe(2);
      const [id] = await seedLeads(db, c, [{}]);
      await sleep(300);
      expect((await leadRow(db, id!))!.status).toBe('raw');
    } finally {
      await w.stop(1000);
      await running;
    }
  });
});
