/**
 * Real `leadline dialer` processes on both stores: one keeps running until
 * SIGTERM (it used to exit by itself on SQLite) and calls a lead scheduled
 * seconds ahead; a new lead wakes an idle dialer at once; a campaign's
 * concurrency holds across three dialers, also while a call whose lead was
 * deleted still rings; and a dialer stopped (SIGSTOP)
 * mid-call loses its claim, its attempt is closed by another dialer's
 * recovery, and on waking it hangs up: the call is never placed again. On
 * SQLite, the lead a dialer's own recovery makes due is called by that dialer
 * at once (its own commits are never signalled to it).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LeadService } from '../../src/leads/service.js';
import type { Store } from '../../src/store/index.js';
import { availableStores, createTestStore, type TestStore } from '../helpers/db.js';
import { type DialerProcess, startDialer } from './dialer-process.js';
import { ALLOW_STUBS, type Stub, startStub } from './http-stub.js';
import { ALWAYS, type Rig, rig, until as within } from './sqlite-rig.js';
import { attemptRows, makeCampaign } from './support.js';

const until = async (what: string, test: () => Promise<boolean>, timeoutMs = 30_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!(await test())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

describe.each(await availableStores())('dialer processes on %s', { timeout: 90_000 }, (kind) => {
  let store: TestStore;
  let db: Store;
  let leads: LeadService;
  let phone: Stub;
  /** how long the telephony stub takes to answer, and how many calls it holds at once */
  let callMs = 0;
  let running = 0;
  let most = 0;
  const dialers: DialerProcess[] = [];
  const env = () => ({ DATABASE_URL: store.url, ...ALLOW_STUBS });

  beforeAll(async () => {
    store = await createTestStore(kind);
    db = await store.open();
    leads = new LeadService(db);
    phone = await startStub(null, async () => {
      running++;
      most = Math.max(most, running);
      await new Promise((r) => setTimeout(r, callMs));
      running--;
      return { body: { success: true, outcome: 'answered' } };
    });
  });
  afterAll(async () => {
    for (const d of dialers) if (d.child.exitCode === null) d.child.kill('SIGKILL');
    await phone?.close();
    await db?.close();
    await store?.drop();
  });

  const dialer = (args: string[]) => {
    const d = startDialer(args, env());
    dialers.push(d);
    return d;
  };
  const campaign = async (settings: Parameters<typeof makeCampaign>[1] = {}) => {
    const campaignId = await makeCampaign(db, { provider: 'webhook', provider_url: phone.url, ...settings });
    const { company_id } = (await db.campaigns.byId(campaignId))!;
    return { campaignId, access: { companyId: company_id, campaignId: null } };
  };
  const callsOf = (campaignId: string) => phone.requests.filter((r) => r.body.campaignId === campaignId);

  it('runs until SIGTERM, calls a lead scheduled seconds ahead, and a new lead wakes it at once; exits 0', async () => {
    const { campaignId, access } = await campaign();
    // a poll interval of 10 minutes: only due times and new leads can make it call sooner
    const d = dialer(['--campaign', campaignId, '--poll-interval', '10m']);
    await d.waitFor((l) => l.msg === 'dialer started');
    await new Promise((r) => setTimeout(r, 4000));
    expect(d.child.exitCode).toBeNull();

    const soon = new Date(Date.now() + 3000).toISOString();
    await leads.create(access, { campaignId, phoneNumber: '+14155550301', scheduledFor: soon });
    await until('the scheduled lead to be called', async () => callsOf(campaignId).length === 1);
    expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(soon));

    await leads.create(access, { campaignId, phoneNumber: '+14155550302' });
    await until('the new lead to be called', async () => callsOf(campaignId).length === 2);
    expect(callsOf(campaignId).map((r) => r.body.phoneNumber)).toEqual(['+14155550301', '+14155550302']);

    d.child.kill('SIGTERM');
    expect(await d.exited).toBe(0);
  });

  it("a campaign's concurrency holds across three dialers", async () => {
    const { campaignId, access } = await campaign({ concurrency: 2 });
    callMs = 600;
    most = 0;
    try {
      await leads.bulkCreate(
        access,
        campaignId,
        Array.from({ length: 8 }, (_, i) => ({ phoneNumber: `+1415555040${i}` })),
      );
      const ds = [0, 1, 2].map(() => dialer(['--campaign', campaignId, '--once']));
      expect(await Promise.all(ds.map((d) => d.exited))).toEqual([0, 0, 0]);
      expect(callsOf(campaignId)).toHaveLength(8);
      expect(most).toBe(2);
    } finally {
      callMs = 0;
    }
  });

  it('--concurrency 1 with two dialers: a second call does not start while the first (its lead deleted) still rings', async () => {
    // A lead deleted through the API during its call does not end the call at once (docs/dialer.md, "A lead
    // deleted during its call"), so the call keeps its slot: its open attempt counts while its dialer is live
    // (src/store/shared/in-flight.ts), and recovery does not close it for the missing lead.
    const { campaignId, access } = await campaign({ concurrency: 1 });
    callMs = 8000;
    most = 0;
    try {
      for (let i = 0; i < 2; i++)
        await dialer(['--campaign', campaignId, '--poll-interval', '1s']).waitFor((l) => l.msg === 'dialer started');
      await leads.create(access, { campaignId, phoneNumber: '+14155550901' });
      await until('the first call to ring', async () => running === 1, 8000);
      // the CRM deletes the lead while its call rings; another lead is due
      await leads.deleteOne(access, { campaignId, phoneNumber: '+14155550901' });
      await leads.create(access, { campaignId, phoneNumber: '+14155550902' });
      // the first call rings for 8 s in all: watch ~5 s of it (recovery runs every 5 s)
      await new Promise((r) => setTimeout(r, 5000));
      expect(callsOf(campaignId), 'calls placed while the first was still ringing').toHaveLength(1);
      expect(most, 'calls ringing at once on a --concurrency 1 campaign').toBe(1);
      // not closed: still placing (open), or hung up at its dialer's renewal and awaiting the receiver's report (accepted)
      const [first] = await db.kysely.selectFrom('attempts').select(['state', 'closed_by']).where('campaign_id', '=', campaignId).execute();
      expect(first!.closed_by).toBeNull();
      expect(['open', 'accepted']).toContain(first!.state);
    } finally {
      callMs = 0;
      for (const d of dialers) if (d.child.exitCode === null) d.child.kill('SIGKILL');
    }
  });

  it('a dialer stopped mid-call loses its claim: recovery closes the attempt as unknown, it hangs up when it wakes, and the call is never placed again', async () => {
    const { campaignId, access } = await campaign({ retry_delay_ms: 3_600_000 });
    callMs = 15_000;
    try {
      const a = dialer(['--campaign', campaignId, '--claim-timeout', '2s']);
      await a.waitFor((l) => l.msg === 'dialer started');
      const leadId = await leads.create(access, { campaignId, phoneNumber: '+14155550501' });
      await until('the call to be placed', async () => callsOf(campaignId).length === 1).catch((err) => {
        throw new Error(`${(err as Error).message}\n${a.output().slice(-3000)}`);
      });
      a.child.kill('SIGSTOP');
      // another dialer's recovery closes the attempt once the stopped one's claim lapses
      const b = dialer(['--campaign', campaignId]);
      await until('recovery', async () => (await attemptRows(db, leadId))[0]?.state === 'closed', 25_000).catch((err) => {
        throw new Error(`${(err as Error).message}\n${b.output().slice(-3000)}`);
      });
      expect(await attemptRows(db, leadId)).toMatchObject([{ outcome: 'unknown', closed_by: 'recovery', counts: 1 }]);
      a.child.kill('SIGCONT');
      await a.waitFor((l) => l.msg === 'dialer: lost the claim of a call in flight; hanging up');
      await new Promise((r) => setTimeout(r, 1000));
      // one attempt, one call: nothing dialled twice, the outcome recovery wrote stands
      expect(callsOf(campaignId)).toHaveLength(1);
      expect(await attemptRows(db, leadId)).toMatchObject([{ outcome: 'unknown', closed_by: 'recovery' }]);
      for (const d of [a, b]) d.child.kill('SIGTERM');
      expect(await Promise.all([a.exited, b.exited])).toEqual([0, 0]);
    } finally {
      callMs = 0;
    }
  });
});

describe('a dialer process on SQLite after its own recovery', { timeout: 60_000 }, () => {
  let r: Rig | undefined;
  afterEach(async () => {
    await r?.close();
    r = undefined;
  });

  it('calls a lead again at once when its own recovery closes the attempt of a SIGKILLed dialer (retry delay 0s)', async () => {
    r = await rig();
    const campaignId = await r.campaign([...ALWAYS, '--retry-delay', '0s', '--simulate-duration', '30s', '--max-attempts', '3']);
    const server = await r.serve();
    const a = r.dialer(['--campaign', campaignId, '--claim-timeout', '3s']);
    await a.waitFor((l) => l.msg === 'dialer started');
    expect(await r.createLead(server, { campaignId, phoneNumber: '+13125550102' })).toBe(201);
    await within('the first attempt', () => r!.attempts(campaignId) === 1, 10_000, 20);
    a.child.kill('SIGKILL');
    await a.exited;
    const killed = Date.now();

    const b = r.dialer(['--campaign', campaignId]);
    await b.waitFor((l) => l.msg === 'dialer started');
    // its recovery (every 5 s) closes the dead dialer's attempt as unknown once the 3 s lease lapsed
    await within(
      'recovery to close the first attempt',
      () => (r!.read().prepare("select count(*) as n from attempts where closed_by = 'recovery'").get() as { n: number }).n === 1,
      15_000,
    );
    const recovered = Date.now() - killed;
    // due again at once (retry delay 0s): the dialer that recovered it should call it
    const waited = await within('the second attempt', () => r!.attempts(campaignId) === 2, 25_000).catch(() => Number.POSITIVE_INFINITY);
    // recovery took 5-8 s after the kill; the second call then waited for the 60 s idle poll until recovery woke the schedule
    expect(waited, `recovered ${recovered} ms after the kill`).toBeLessThan(3000);
  });
});
