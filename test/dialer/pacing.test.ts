/**
 * --calls-per-second across dialers: two workers on one campaign, each with
 * its own connection to the database (as two `leadline dialer` processes
 * have), start its calls no closer together than the cap allows between
 * them; the slots are on the database's clock, not the dialers'; a dialer
 * stopped with calls waiting leaves little of the cap unused; a campaign
 * without a cap writes nothing, and a deleted campaign takes its row along.
 */
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteCampaign } from '../../src/campaigns/service.js';
import { Dialer } from '../../src/dialer/worker.js';
import type { Store } from '../../src/store/index.js';
import { availableStores, createTestStore, type TestStore } from '../helpers/db.js';
import { type Stub, startStub } from './http-stub.js';
import { makeCampaign, seedLeads } from './support.js';

const silent = pino({ level: 'silent' });
/** slack for the clocks' granularity (SQLite's 'now' is whole ms; timers round) */
const SLACK_MS = 10;

describe.each(await availableStores())('--calls-per-second across dialers on %s', (kind) => {
  let t: TestStore;
  let a: Store;
  let b: Store;
  let phone: Stub;
  /** campaign → when the phone stub received each of its calls (this process's clock) */
  const calls = new Map<string, number[]>();

  beforeAll(async () => {
    t = await createTestStore(kind);
    a = await t.open();
    b = await t.open();
    phone = await startStub(null, (req) => {
      const at = calls.get(req.body.campaignId) ?? [];
      calls.set(req.body.campaignId, [...at, Date.now()]);
      return { body: { success: true, outcome: 'answered' } };
    });
  });
  afterAll(async () => {
    await phone?.close();
    await a?.close();
    await b?.close();
    await t?.drop();
  });

  const campaign = (settings: { calls_per_second: number | null; concurrency?: number }) =>
    makeCampaign(a, { provider: 'webhook', provider_url: phone.url, concurrency: 4, ...settings });
  const dialer = (store: Store, campaignId: string, now?: () => number) =>
    new Dialer({ store, logger: silent, campaignIds: [campaignId], now });
  const claimedBy = async (campaignId: string, workerId: string) =>
    (await a.kysely.selectFrom('leads').select('id').where('campaign_id', '=', campaignId).where('claimed_by', '=', workerId).execute())
      .length;
  const rawLeads = async (campaignId: string) =>
    (await a.kysely.selectFrom('leads').select('id').where('campaign_id', '=', campaignId).where('status', '=', 'raw').execute()).length;
  const pacingRow = (campaignId: string) =>
    a.kysely.selectFrom('campaign_pacing').selectAll().where('campaign_id', '=', campaignId).executeTakeFirst();
  const until = async (what: () => Promise<boolean> | boolean) => {
    while (!(await what())) await new Promise((r) => setTimeout(r, 5));
  };

  it('two dialers start the campaign’s calls one slot apart between them, whatever their clocks say', async () => {
    const campaignId = await campaign({ calls_per_second: 2 });
    const t0 = Date.now();
    // the first dialer claims two leads (all that is due), and paces them
    await seedLeads(a, campaignId, [{}, {}]);
    const first = dialer(a, campaignId);
    const firstRun = first.runOnce();
    // both taken: none is raw any more. (Waiting to see both held at once raced the
    // first call, which may end, and give its lead back, between two looks.)
    await until(async () => (await rawLeads(campaignId)) === 0);
    // the second, on its own connection, claims the next two while the first's
    // are under way. Its clock is ten minutes slow: were the slots on the
    // dialers' clocks, one of the two would wait those ten minutes for its
    // slot (and the test time out).
    await seedLeads(a, campaignId, [{}, {}]);
    const second = dialer(b, campaignId, () => Date.now() - 600_000);
    const secondRun = second.runOnce();
    expect((await firstRun).attempts).toBe(2);
    expect((await secondRun).attempts).toBe(2);

    const starts = calls.get(campaignId)!.sort((x, y) => x - y);
    expect(starts).toHaveLength(4);
    // 2 a second between both dialers: the n-th call (from 0) starts no earlier than
    // n × 500 ms after t0. Lower bounds only: a call started late under load moves
    // later ones no earlier (each waits for its own slot), and a one-process pacer
    // started each dialer's first call at once.
    for (const [n, at] of starts.entries()) expect(at - t0, `call ${n}`).toBeGreaterThanOrEqual(n * 500 - SLACK_MS);
  }, 30_000);

  it('a dialer stopped with calls waiting for their slots leaves at most one of them reserved', async () => {
    // 1 call every 5 s and 5 claimed at once: were every waiting call to hold a
    // slot, the campaign would be booked 25 s ahead when the dialer stops
    const campaignId = await campaign({ calls_per_second: 0.2, concurrency: 5 });
    await seedLeads(a, campaignId, [{}, {}, {}, {}, {}]);
    const w = dialer(a, campaignId);
    const run = w.runOnce();
    // the first call is placed at once; the next in line has its slot, 5 s on, and three wait behind it
    await until(() => (calls.get(campaignId)?.length ?? 0) === 1);
    const stoppedAt = Date.now();
    await w.stop(0);
    expect((await run).attempts).toBe(1);
    // the call placed, and the next in line: the following slot is at most two intervals on
    const row = await pacingRow(campaignId);
    expect(Number(row!.next_call_at) - stoppedAt).toBeLessThanOrEqual(2 * 5000 + SLACK_MS);
    expect(await claimedBy(campaignId, w.workerId)).toBe(0);
  }, 30_000);

  it('a campaign without a cap reserves no slot; deleting a campaign deletes its slots', async () => {
    const uncapped = await campaign({ calls_per_second: null });
    await seedLeads(a, uncapped, [{}, {}]);
    expect((await dialer(a, uncapped).runOnce()).attempts).toBe(2);
    expect(await pacingRow(uncapped)).toBeUndefined();

    const capped = await campaign({ calls_per_second: 50 });
    await seedLeads(a, capped, [{}]);
    expect((await dialer(a, capped).runOnce()).attempts).toBe(1);
    expect(await pacingRow(capped)).toBeDefined();
    await deleteCampaign(a, capped);
    expect(await pacingRow(capped)).toBeUndefined();
    // a dialer still holding the deleted campaign reserves nothing for it, and fails nothing
    expect(await a.pacing.reserve(capped, 20)).toBe(0);
    expect(await pacingRow(capped)).toBeUndefined();
  });
});
