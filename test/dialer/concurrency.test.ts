/**
 * Real `leadline dialer` processes racing over one campaign of 2,000 due
 * leads on PostgreSQL (1,000 on SQLite, whose one writer makes it slower). The webhook provider points at a local server that counts
 * every call it receives, so a double dial would be seen where it happens.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateCampaign } from '../../src/campaigns/service.js';
import type { Store } from '../../src/store/index.js';
import { availableStores, createTestStore, type TestStore } from '../helpers/db.js';
import { startDialer } from './dialer-process.js';
import { ALLOW_STUBS, type Stub, startStub } from './http-stub.js';
import { makeCampaign, seedMany } from './support.js';

const WORKERS = 4;
/** campaign-wide: the four workers share these slots */
const CONCURRENCY = 64;
describe.each(await availableStores())(`${WORKERS} dialer processes over one campaign on %s`, (kind) => {
  // Enough that every worker claims many batches and all four race for the
  // same slots and rows the whole time; larger runs belong to bench/ (row 7).
  // (4,000 on PostgreSQL took over 120 s on 2 loaded cores in CI)
  const LEADS = kind === 'postgres' ? 2_000 : 1_000;
  let store: TestStore;
  let db: Store;
  let phone: Stub;
  /** what the telephony stub answers: fail everything, or succeed */
  let succeed = false;
  const dials = new Map<string, number>();
  /**
   * While set, the stub holds every call's answer until it resolves, and the
   * held calls' leads are in `ringing`: a test can see which calls are in
   * flight and know that none of them ends before it says so.
   */
  let hold: Promise<void> | null = null;
  const ringing = new Set<string>();
  const env = () => ({ DATABASE_URL: store.url, LOG_LEVEL: 'warn', PG_POOL_SIZE: '4', ...ALLOW_STUBS });

  beforeAll(async () => {
    store = await createTestStore(kind);
    db = await store.open();
    phone = await startStub(null, async (req) => {
      dials.set(req.body.leadId, (dials.get(req.body.leadId) ?? 0) + 1);
      if (hold) {
        ringing.add(req.body.leadId);
        await hold;
        ringing.delete(req.body.leadId);
      }
      // each call takes a moment, as a real one would: calls overlap, and a
      // worker killed mid-run has calls in flight with their attempts open
      return { body: { success: succeed, outcome: succeed ? 'answered' : 'no-answer' }, delayMs: kind === 'postgres' ? 30 : 150 };
    });
  });
  afterAll(async () => {
    await phone?.close();
    await db?.close();
    await store?.drop();
  });

  const campaign = async () => {
    const id = await makeCampaign(db, {
      provider: 'webhook',
      provider_url: phone.url,
      concurrency: CONCURRENCY,
      retry_delay_ms: 3_600_000,
      max_attempts: 5,
    });
    await seedMany(db, id, LEADS);
    return id;
  };
  const counts = () => [...dials.values()].reduce((m, n) => m.set(n, (m.get(n) ?? 0) + 1), new Map<number, number>());
  const statuses = async (campaignId: string) =>
    Object.fromEntries(
      (
        await db.kysely
          .selectFrom('leads')
          .select(['status', 'attempts', (eb) => eb.fn.countAll<number>().as('n')])
          .where('campaign_id', '=', campaignId)
          .groupBy(['status', 'attempts'])
          .execute()
      ).map((r) => [`${r.status}/${r.attempts}`, Number(r.n)]),
    );

  it('every lead is called exactly once per round: no double dial, none missed', async () => {
    const c = await campaign();
    dials.clear();
    succeed = false;
    for (let round = 1; round <= 2; round++) {
      // The workers start a few hundred ms apart, so a retry delay that ends within the
      // round would let a late starter call early finishers again: rounds are an hour apart.
      if (round > 1) await db.kysely.updateTable('leads').set({ next_attempt_at: null }).where('campaign_id', '=', c).execute();
      const workers = Array.from({ length: WORKERS }, () => startDialer(['--once', '--campaign', c], env()));
      expect(await Promise.all(workers.map((w) => w.exited))).toEqual(Array(WORKERS).fill(0));
      expect(dials.size).toBe(LEADS);
      expect(counts()).toEqual(new Map([[round, LEADS]]));
      expect(await statuses(c)).toEqual({ [`attempting/${round}`]: LEADS });
      // Every worker asked: the four claim concurrently all the while. How the calls
      // split between them is not promised (and not asserted): slots are campaign-wide,
      // and a worker refills the slots its ending calls free before a worker that found
      // them taken asks again, so one worker may place every call of a short run.
    }
  }, 240_000);

  it('a worker killed with SIGKILL mid-run: each call it placed closes as unknown after the claim timeout and is never dialled again; its other leads are called once by the others', async () => {
    const c = await campaign();
    await updateCampaign(db, c, { max_attempts: 1 });
    dials.clear();
    succeed = true;
    const timeoutMs = 2000;
    const start = () =>
      startDialer(['--campaign', c, '--claim-timeout', `${timeoutMs / 1000}s`, '--poll-interval', '1s'], { ...env(), LOG_LEVEL: 'info' });
    // The victim starts first and holds calls before the others start: a worker
    // that holds the campaign's slots refills them as its calls end, so a late
    // starter might hold nothing to lose when it is killed.
    const victim = start();
    const victimId = (await victim.waitFor((l) => l.msg === 'dialer started')).worker as string;
    const victimHolds = async () =>
      (await db.kysely.selectFrom('leads').select('id').where('campaign_id', '=', c).where('claimed_by', '=', victimId).limit(1).execute())
        .length > 0;
    while (!(await victimHolds())) await new Promise((r) => setTimeout(r, 5));
    const survivors = Array.from({ length: WORKERS - 1 }, start);
    while (dials.size < LEADS / 4) await new Promise((r) => setTimeout(r, 5));
    // Then hold every call's answer, so that calls stop ending, until a call the
    // victim placed is ringing: killed then, it surely dies with a call in flight
    // (reading its claims first and killing after would race its calls' ends).
    // Should the survivors hold every slot, answer the held calls and try again.
    const victimRinging = async () =>
      ringing.size > 0 &&
      (
        await db.kysely
          .selectFrom('leads')
          .select('id')
          .where('id', 'in', [...ringing])
          .where('claimed_by', '=', victimId)
          .limit(1)
          .execute()
      ).length > 0;
    const heldByVictim = () =>
      db.kysely
        .selectFrom('leads')
        .select(['id', 'next_attempt_at'])
        .where('campaign_id', '=', c)
        .where('claimed_by', '=', victimId)
        .execute();
    let heldBeforeKill: { id: string; next_attempt_at: string | null }[] = [];
    for (;;) {
      let release!: () => void;
      hold = new Promise<void>((r) => {
        release = r;
      });
      const until = Date.now() + 1000;
      while (!(await victimRinging()) && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
      if (await victimRinging()) {
        // its claims, read while no call can end: on loaded cores, the kill can
        // take longer than a lease, and recovery may release some before they
        // are read again below
        heldBeforeKill = await heldByVictim();
        victim.child.kill('SIGKILL');
        expect(await victim.exited).toBe('SIGKILL');
        hold = null;
        release();
        break;
      }
      hold = null;
      release();
      await new Promise((r) => setTimeout(r, 50));
    }
    const held = [...new Map([...heldBeforeKill, ...(await heldByVictim())].map((h) => [h.id, h])).values()];
    expect(held.length).toBeGreaterThan(0);
    // the campaign's concurrency holds across every dialer
    expect(held.length).toBeLessThanOrEqual(CONCURRENCY);
    const expiry = new Map(held.map((h) => [h.id, Date.parse(h.next_attempt_at!)]));

    const deadline = Date.now() + 60_000;
    const done = async () => {
      const s = await statuses(c);
      return (s['concluded/1'] ?? 0) + (s['exhausted/1'] ?? 0) === LEADS;
    };
    while (!(await done()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(await done()).toBe(true);
    // Nobody was dialled twice: at most once per attempt, across the crash.
    expect(Math.max(...dials.values())).toBe(1);
    // Every lead the dead worker did not hold was called once, and concluded.
    const attempts = await db.kysely.selectFrom('attempts').selectAll().where('campaign_id', '=', c).execute();
    expect(attempts).toHaveLength(LEADS);
    for (const a of attempts.filter((x) => !expiry.has(x.lead_id))) expect([a.outcome, dials.get(a.lead_id)]).toEqual(['answered', 1]);
    // The dead worker's open attempts closed as unknown, by recovery, once its claims lapsed: never placed again.
    const recovered = attempts.filter((a) => a.outcome === 'unknown');
    expect(recovered.length).toBeGreaterThan(0);
    for (const a of recovered) {
      expect(expiry.has(a.lead_id)).toBe(true);
      expect(a.closed_by).toBe('recovery');
      expect(Number(a.finished_at)).toBeGreaterThanOrEqual(expiry.get(a.lead_id)!);
    }
    expect((await statuses(c))['exhausted/1'] ?? 0).toBe(recovered.length);

    for (const w of survivors) w.child.kill('SIGTERM');
    expect(await Promise.all(survivors.map((w) => w.exited))).toEqual([0, 0, 0]);
  }, 240_000);
});
