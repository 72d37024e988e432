/**
 * Dialers on several hosts share one campaign. --concurrency and the claim
 * leases are judged on each dialer's own clock, so a host whose clock runs
 * 3 minutes fast (no NTP) would see every other dialer's live lease as lapsed:
 * start a second call on a --concurrency 1 campaign, and close the live one as
 * unknown. On PostgreSQL a dialer compares its clock with the database's
 * (src/dialer/clock-guard.ts) and, while they disagree, claims and recovers
 * nothing, says so, and resumes once they agree.
 */
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClockGuard, MAX_SKEW_MS } from '../../src/dialer/clock-guard.js';
import { LeadService } from '../../src/leads/service.js';
import type { Store } from '../../src/store/index.js';
import { createTestStore, type TestStore } from '../helpers/db.js';
import { serviceAvailable } from '../helpers/services.js';
import { type DialerProcess, startDialer } from './dialer-process.js';
import { ALLOW_STUBS, type Stub, startStub } from './http-stub.js';
import { attemptRows, makeCampaign } from './support.js';

const ready = await serviceAvailable('postgres');
const SKEWED = fileURLToPath(new URL('../helpers/skewed-clock.cjs', import.meta.url));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const until = async (test: () => boolean | Promise<boolean>, ms: number) => {
  const deadline = Date.now() + ms;
  while (!(await test())) {
    if (Date.now() > deadline) return false;
    await sleep(25);
  }
  return true;
};

describe.skipIf(!ready)('two dialers whose host clocks disagree', { timeout: 60_000 }, () => {
  let store: TestStore;
  let db: Store;
  let leads: LeadService;
  let phone: Stub;
  let ringing = 0;
  let most = 0;
  const dialers: DialerProcess[] = [];

  beforeAll(async () => {
    store = await createTestStore('postgres');
    db = await store.open();
    leads = new LeadService(db);
    phone = await startStub(null, async () => {
      ringing++;
      most = Math.max(most, ringing);
      await sleep(10_000);
      ringing--;
      return { body: { success: true, outcome: 'answered' } };
    });
  });
  afterAll(async () => {
    for (const d of dialers) {
      if (d.child.exitCode === null && d.child.signalCode === null) d.child.kill('SIGKILL');
      await d.exited;
    }
    await phone?.close();
    await db?.close();
    await store?.drop();
  });

  it('--concurrency 1: a dialer whose clock runs 3 min fast does not start a second call, nor close the live one as unknown', async () => {
    const campaignId = await makeCampaign(db, { provider: 'webhook', provider_url: phone.url, concurrency: 1 });
    const { company_id } = (await db.campaigns.byId(campaignId))!;
    const access = { companyId: company_id, campaignId: null };
    const env = { DATABASE_URL: store.url, ...ALLOW_STUBS };
    const a = startDialer(['--campaign', campaignId], env);
    dialers.push(a);
    await a.waitFor((l) => l.msg === 'dialer started');
    const first = await leads.create(access, { campaignId, phoneNumber: '+14155551001' });
    expect(await until(() => ringing === 1, 8000)).toBe(true);

    const b = startDialer(['--campaign', campaignId], { ...env, CLOCK_SKEW_MS: String(180_000), NODE_OPTIONS: `--require ${SKEWED}` });
    dialers.push(b);
    await b.waitFor((l) => l.msg === 'dialer started');
    await leads.create(access, { campaignId, phoneNumber: '+14155551002' });
    // the first call rings 10 s in all; watch 6 s of it (the skewed dialer's recovery runs every 5 s)
    await sleep(6000);
    const attempt = (await attemptRows(db, first))[0];
    expect({ calls: phone.requests.length, most, firstAttempt: `${attempt?.state}/${attempt?.outcome}/${attempt?.closed_by}` }).toEqual({
      calls: 1,
      most: 1,
      firstAttempt: 'open/null/null',
    });
    // it says why, and what to do
    const said = b.logs().filter((l) => l.level === 50 && /clock/.test(l.msg));
    expect(said).toHaveLength(1);
    expect(said[0].skewMs).toBeLessThan(-170_000);
    expect(said[0].msg).toMatch(/ahead of the database's.*NTP/);
  });
});

describe('the clock guard', () => {
  const lines: { level: number; msg: string }[] = [];
  const log = pino({ level: 'info' }, { write: (l: string) => lines.push(JSON.parse(l)) });
  let dbClock = 0;
  let hostClock = 0;
  const store = { dialers: { clock: async () => dbClock } } as unknown as Store;

  it('holds the dialer back until its first reading, while the clocks disagree, and lets it go once they agree', async () => {
    const guard = new ClockGuard(store, log, () => hostClock);
    expect(guard.ok).toBe(false);
    dbClock = 1_000_000;
    hostClock = dbClock + MAX_SKEW_MS - 100;
    await guard.check();
    expect(guard.ok).toBe(true);
    hostClock = dbClock + 5000;
    await guard.check();
    await guard.check();
    expect(guard.ok).toBe(false);
    // logged once, not with every heartbeat
    expect(lines.filter((l) => l.level === 50)).toHaveLength(1);
    hostClock = dbClock - MAX_SKEW_MS - 1000;
    await guard.check();
    expect(guard.ok).toBe(false);
    hostClock = dbClock;
    await guard.check();
    expect(guard.ok).toBe(true);
    expect(lines.at(-1)?.msg).toMatch(/agrees with the database again/);
  });

  it('has nothing to compare on SQLite', async () => {
    const guard = new ClockGuard({ dialers: { clock: async () => null } } as unknown as Store, log, () => 0);
    await guard.check();
    expect(guard.ok).toBe(true);
  });
});
