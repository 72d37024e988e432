/**
 * `?pgbouncer=true` (src/db/postgres.ts), through a real PgBouncer in
 * transaction mode: no statement_timeout startup parameter (PgBouncer
 * refuses the connection over it), and the dialer's change signal without a
 * LISTEN through the pooler: the events table polled, or LISTEN on
 * DATABASE_LISTEN_URL. The whole PostgreSQL suite also runs through it in CI
 * (npm run test:pgbouncer).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { poolerOptions } from '../../src/db/postgres.js';
import { LeadService } from '../../src/leads/service.js';
import { openStore, type Store } from '../../src/store/index.js';
import { createTestStore, type TestStore } from '../helpers/db.js';
import { type Pgbouncer, PGBOUNCER, startPgbouncer } from '../helpers/pgbouncer.js';
import { PG_ADMIN_URL, runOrSkip, serviceAvailable } from '../helpers/services.js';
import { makeCampaign } from '../dialer/support.js';

describe('the pooler option of DATABASE_URL', () => {
  it('is read and removed from the URL pg gets; other parameters stay', () => {
    expect(poolerOptions('postgres://u@h:6432/db?pgbouncer=true&sslmode=require')).toEqual({
      pgbouncer: true,
      url: 'postgres://u@h:6432/db?sslmode=require',
    });
    expect(poolerOptions('postgres://u@h/db')).toEqual({ pgbouncer: false, url: 'postgres://u@h/db' });
    expect(poolerOptions('postgres://u@h/db?pgbouncer=false').pgbouncer).toBe(false);
  });
});

/** the server itself (under npm run test:pgbouncer, TEST_PG_URL is a pooler already) */
const DIRECT = process.env.TEST_PG_DIRECT_URL ?? PG_ADMIN_URL;
const runs =
  (await serviceAvailable('postgres')) && runOrSkip(PGBOUNCER !== null, 'pgbouncer is not installed: skipping the PgBouncer suite');
describe.runIf(runs)('behind PgBouncer (?pgbouncer=true)', () => {
  let test: TestStore;
  let direct: Store;
  let bouncer: Pgbouncer;
  /** the test database, through the pooler */
  const url = () => {
    const u = new URL(bouncer.url);
    u.pathname = new URL(test.url).pathname;
    return u.toString();
  };

  beforeAll(async () => {
    bouncer = await startPgbouncer(DIRECT);
    test = await createTestStore('postgres');
    direct = await test.open();
  });
  afterAll(async () => {
    await direct?.close();
    await test?.drop();
    await bouncer?.stop();
  });

  /** resolves when the watcher signals a change after a lead is created through another connection */
  async function signalled(store: Store): Promise<boolean> {
    let changes = 0;
    const stop = store.watch(() => changes++, { pollMs: 20 });
    try {
      // a first signal may come as the watch starts: count from a settled state
      await new Promise((r) => setTimeout(r, 300));
      const before = changes;
      const campaignId = await makeCampaign(direct);
      const { company_id } = (await direct.campaigns.byId(campaignId))!;
      await new LeadService(direct).create({ companyId: company_id, campaignId: null }, { campaignId, phoneNumber: '+14155550901' });
      const deadline = Date.now() + 5000;
      while (changes === before && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      return changes > before;
    } finally {
      await stop();
    }
  }

  it('sends no statement_timeout, and still reads and writes', async () => {
    const store = openStore({ kind: 'postgres', url: url() }, { pgPoolSize: 2 });
    try {
      await store.ping();
      expect(store.location).toContain('through PgBouncer');
    } finally {
      await store.close();
    }
  });

  it('learns of new leads by polling the events table when no LISTEN URL is given', async () => {
    const store = openStore({ kind: 'postgres', url: url() }, { pgPoolSize: 2 });
    try {
      expect(await signalled(store)).toBe(true);
    } finally {
      await store.close();
    }
  });

  it('LISTENs on DATABASE_LISTEN_URL when it is given', async () => {
    const listenUrl = new URL(DIRECT);
    listenUrl.pathname = new URL(test.url).pathname;
    const store = openStore({ kind: 'postgres', url: url() }, { pgPoolSize: 2, pgListenUrl: listenUrl.toString() });
    try {
      expect(await signalled(store)).toBe(true);
    } finally {
      await store.close();
    }
  });
});
