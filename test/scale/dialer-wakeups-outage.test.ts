/**
 * A running dialer must hear of new leads at once (docs/dialer.md,
 * "Running the worker"), also after its connection to the database was cut
 * and came back ("a database that goes away is logged and retried").
 * The dialer runs with a 60 s poll interval, so a lead it does not hear of
 * waits a minute; each test gives it 8 s. Behind PgBouncer without a LISTEN
 * URL the first poll of max(id) that works after failed ones signals a change
 * (src/db/postgres.ts, pollEvents); with one, a read of the events that failed
 * is tried again (src/dialer/wakeups.ts).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LeadService } from '../../src/leads/service.js';
import type { Store } from '../../src/store/index.js';
import { createTestStore, type TestStore } from '../helpers/db.js';
import { PGBOUNCER, type Pgbouncer, startPgbouncer } from '../helpers/pgbouncer.js';
import { PG_ADMIN_URL, serviceAvailable } from '../helpers/services.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';
import { type DialerProcess, startDialer } from '../dialer/dialer-process.js';
import { ALLOW_STUBS, type Stub, startStub } from '../dialer/http-stub.js';
import { makeCampaign } from '../dialer/support.js';

const ready = (await serviceAvailable('postgres')) && PGBOUNCER !== null;

/**
 * The test database reached straight, not through the suite's own PgBouncer (npm run
 * test:pgbouncer points TEST_PG_URL at one): LISTEN needs a session of its own.
 */
function direct(url: string): string {
  const u = new URL(url);
  const d = new URL(process.env.TEST_PG_DIRECT_URL ?? PG_ADMIN_URL);
  u.host = d.host;
  u.username = d.username;
  u.password = d.password;
  return u.toString();
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const until = async (test: () => boolean | Promise<boolean>, ms: number) => {
  const deadline = Date.now() + ms;
  while (!(await test())) {
    if (Date.now() > deadline) return false;
    await sleep(50);
  }
  return true;
};

describe.skipIf(!ready)('dialer wake-ups across a lost database connection', { timeout: 60_000 }, () => {
  let store: TestStore;
  let db: Store;
  let leads: LeadService;
  let phone: Stub;
  let bouncer: Pgbouncer;
  const proxies: TcpProxy[] = [];
  const dialers: DialerProcess[] = [];

  beforeAll(async () => {
    store = await createTestStore('postgres');
    db = await store.open();
    leads = new LeadService(db);
    bouncer = await startPgbouncer(store.url);
    phone = await startStub(null, () => ({ body: { success: true, outcome: 'answered' } }));
  }, 30_000);
  afterEach(async () => {
    for (const d of dialers.splice(0)) {
      if (d.child.exitCode === null && d.child.signalCode === null) d.child.kill('SIGKILL');
      await d.exited;
    }
    for (const p of proxies.splice(0)) await p.close();
  });
  afterAll(async () => {
    await phone?.close();
    await db?.close();
    await bouncer?.stop();
    await store?.drop();
  });

  const campaign = async () => {
    const campaignId = await makeCampaign(db, { provider: 'webhook', provider_url: phone.url, retry_delay_ms: 3_600_000 });
    const { company_id } = (await db.campaigns.byId(campaignId))!;
    return { campaignId, access: { companyId: company_id, campaignId: null } };
  };
  const callsOf = (campaignId: string) => phone.requests.filter((r) => r.body.campaignId === campaignId);
  /** adds one more lead: when the dialer then calls both at once, the earlier one was only never heard of */
  const strandedLead = async (access: { companyId: string; campaignId: null }, campaignId: string, phoneNumber: string) => {
    await leads.create(access, { campaignId, phoneNumber });
    const both = await until(() => callsOf(campaignId).length === 3, 5000);
    return both
      ? 'a further new lead woke the dialer and both were called at once: the dialer works, the first was never heard of'
      : `even a further lead was not called: ${callsOf(campaignId).length} calls`;
  };
  const proxyTo = async (url: string) => {
    const u = new URL(url);
    const proxy = await startTcpProxy({ host: u.hostname, port: Number(u.port) });
    proxies.push(proxy);
    u.port = String(proxy.port);
    return { proxy, url: u.toString() };
  };

  it('behind PgBouncer without DATABASE_LISTEN_URL: a lead added while the dialer was cut off is called soon after it reconnects', async () => {
    const { campaignId, access } = await campaign();
    // dialer → TCP proxy → PgBouncer (transaction mode) → PostgreSQL; no LISTEN URL: it polls max(id)
    const { proxy, url } = await proxyTo(bouncer.url);
    const d = startDialer(['--campaign', campaignId, '--poll-interval', '60s'], { DATABASE_URL: url, ...ALLOW_STUBS });
    dialers.push(d);
    await d.waitFor((l) => l.msg === 'dialer started');
    // the wake-ups work while connected
    await leads.create(access, { campaignId, phoneNumber: '+14155550601' });
    expect(await until(() => callsOf(campaignId).length === 1, 8000)).toBe(true);
    await sleep(500);

    // the dialer's network path to the pooler goes away for a moment; a lead is added meanwhile (by a server)
    await proxy.down();
    await sleep(600);
    await leads.create(access, { campaignId, phoneNumber: '+14155550602' });
    await sleep(600);
    await proxy.up();
    const back = Date.now();

    const called = await until(() => callsOf(campaignId).length === 2, 8000);
    const waited = Date.now() - back;
    // diagnosis: one more lead wakes the campaign; the stranded one is then called with it
    const diagnosis = called ? '' : await strandedLead(access, campaignId, '+14155550603');
    expect(called, `lead not called within 8 s of the connection coming back (it waits for the 60 s poll); ${diagnosis}`).toBe(true);
    expect(waited).toBeLessThan(8000);
  });

  it('with DATABASE_LISTEN_URL: a notice whose events read failed (pool path down) is read again once the pool is back', async () => {
    const { campaignId, access } = await campaign();
    // statements go dialer → TCP proxy → PgBouncer; LISTEN goes straight to PostgreSQL (as docs/operations.md advises)
    const { proxy, url } = await proxyTo(bouncer.url);
    const d = startDialer(['--campaign', campaignId, '--poll-interval', '60s'], {
      DATABASE_URL: url,
      DATABASE_LISTEN_URL: direct(store.url),
      ...ALLOW_STUBS,
    });
    dialers.push(d);
    await d.waitFor((l) => l.msg === 'dialer started');
    await leads.create(access, { campaignId, phoneNumber: '+14155550701' });
    expect(await until(() => callsOf(campaignId).length === 1, 8000)).toBe(true);
    await sleep(500);

    // the pooler path goes away; the LISTEN connection stays, so the new lead's NOTIFY arrives,
    // and the events read it starts fails
    await proxy.down();
    await sleep(300);
    await leads.create(access, { campaignId, phoneNumber: '+14155550702' });
    await d.waitFor((l) => l.msg === 'dialer: reading new leads failed; campaigns are still polled', 5000);
    await sleep(300);
    await proxy.up();
    const back = Date.now();

    const called = await until(() => callsOf(campaignId).length === 2, 8000);
    const waited = Date.now() - back;
    const diagnosis = called ? '' : await strandedLead(access, campaignId, '+14155550703');
    expect(called, `lead not called within 8 s of the pool coming back (it waits for the 60 s poll); ${diagnosis}`).toBe(true);
    expect(waited).toBeLessThan(8000);
  });
});
