/** Several processes starting at once on an empty database migrate it once, without error. */
import { Worker } from 'node:worker_threads';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { availableStores, createTestStore } from '../helpers/db.js';

const DIST_DB = new URL('../../dist/db/index.js', import.meta.url).href;

// Each worker thread stands for a process: its own connection and its own
// event loop (better-sqlite3 waits for locks synchronously, so two connections
// in one thread could never wait on each other). A shared barrier releases
// them at the same instant, which makes the race real.
const WORKER = `
const { workerData, parentPort } = require('node:worker_threads');
(async () => {
  const { createDb } = await import(workerData.dist);
  const db = createDb(workerData.config);
  const barrier = new Int32Array(workerData.barrier);
  Atomics.add(barrier, 0, 1);
  while (Atomics.load(barrier, 0) < workerData.count) Atomics.wait(barrier, 0, Atomics.load(barrier, 0), 5);
  try { await db.migrate(); parentPort.postMessage('ok'); }
  catch (err) { parentPort.postMessage(String(err)); }
  finally { await db.close(); }
})();
`;

function migrateAtOnce(config: unknown, count: number): Promise<string[]> {
  const barrier = new SharedArrayBuffer(4);
  return Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<string>((resolve, reject) => {
          const w = new Worker(WORKER, { eval: true, workerData: { dist: DIST_DB, config, barrier, count } });
          w.once('message', resolve);
          w.once('error', reject);
        }),
    ),
  );
}

describe.each(await availableStores())('migrations on %s', (kind) => {
  it('run from 4 concurrent connections at once without error, and are idempotent', async () => {
    for (let round = 0; round < 3; round++) {
      const store = await createTestStore(kind);
      try {
        expect(await migrateAtOnce(store.config, 4)).toEqual(['ok', 'ok', 'ok', 'ok']);
        const db = await store.open();
        const { rows } = await sql<{ name: string }>`select name from kysely_migration`.execute(db.kysely);
        expect(rows.map((r) => r.name)).toEqual([
          '0001_core',
          '0002_dialer',
          '0003_dashboard',
          '0004_leads_analyze',
          '0005_lead_zones',
          '0006_simulate_settings',
          '0007_unclaimed_attempting',
          '0008_nanp_zones',
          '0009_dialer_production',
          '0010_timezone_narrows',
          '0011_compliance',
          '0012_webhooks',
          '0013_platform_providers',
          '0014_calling_gates',
          '0015_number_digests',
          '0016_regional_rules',
          '0017_campaign_pacing',
          '0018_lead_search',
          '0019_attempts_accepted',
          '0020_one_provider_call_index',
          '0021_byte_order_identifiers',
          '0022_webhook_generation',
          '0023_campaign_revision',
          '0024_attempts_pending',
          '0025_late_not_placed',
        ]);
        await db.close();
      } finally {
        await store.drop();
      }
    }
  });
});

describe.skipIf(!(await availableStores()).includes('postgres'))('migrations on postgres: statistics', () => {
  it('have autovacuum analyze leads after 1% of it changes, so that a growing campaign is soon known to the planner', async () => {
    const store = await createTestStore('postgres');
    try {
      const db = await store.open();
      const { rows } = await sql<{ reloptions: string[] | null }>`
        select reloptions from pg_class where oid = 'leads'::regclass`.execute(db.kysely);
      expect(rows[0]!.reloptions).toContain('autovacuum_analyze_scale_factor=0.01');
      await db.close();
    } finally {
      await store.drop();
    }
  });
});
