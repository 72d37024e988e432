/**
 * The dialer placing calls through each platform's adapter, in-process on both stores against
 * the local fakes: one create-call per attempt carrying its own callback URL under PUBLIC_URL, the
 * platform's call id kept on the attempt, a refusal that spends no attempt, and a campaign that
 * cannot be dialled without PUBLIC_URL.
 */
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { providerFor } from '../../src/dialer/providers/index.js';
import { Dialer, type DialerOptions } from '../../src/dialer/worker.js';
import type { Store } from '../../src/store/index.js';
import { availableStores, createTestStore, type TestStore } from '../helpers/db.js';
import { attemptRows, leadRow, makeCampaign, seedLeads } from '../dialer/support.js';
import { localRequester, PLATFORM_NAMES, PUBLIC_URL, startCase } from './platform-cases.js';

const silent = pino({ level: 'silent' });

describe.each(await availableStores())('the dialer through the platforms on %s', (kind) => {
  let t: TestStore;
  let db: Store;
  beforeAll(async () => {
    t = await createTestStore(kind);
    db = await t.open();
  });
  afterAll(async () => {
    await db.close();
    await t.drop();
  });
  const worker = (campaignId: string, o: Partial<DialerOptions> = {}) =>
    new Dialer({ store: db, logger: silent, campaignIds: [campaignId], publicUrl: PUBLIC_URL, request: localRequester, ...o });

  it.each(PLATFORM_NAMES)('%s: one create-call with the per-call callback URL; the call id is kept on the attempt', async (name) => {
    const p = await startCase(name);
    try {
      const campaignId = await makeCampaign(db, p.settings(p.baseUrl));
      const [lead] = await seedLeads(db, campaignId, [{ metadata: { name: 'Ada' }, externalId: 'crm-1' }]);
      expect(await worker(campaignId).runOnce()).toMatchObject({ attempts: 0, awaiting: 1 });
      const [create, ...more] = p.creates();
      expect(more).toEqual([]);
      const [attempt] = await attemptRows(db, lead!);
      expect(attempt).toMatchObject({ state: 'accepted', outcome: null, counts: 1 });
      expect(attempt!.provider_call_id).toBeTruthy();
      expect(p.callbackOf(create!)).toBe(`${PUBLIC_URL}/api/v1/providers/${name}/events?attemptId=${attempt!.attempt_id}`);
      expect(create!.raw).toContain(attempt!.attempt_id);
      expect(create!.raw).toContain('Ada');
      // awaited: a second run places nothing for it
      await worker(campaignId).runOnce();
      expect(p.creates()).toHaveLength(1);
    } finally {
      await p.close();
    }
  });

  it.each(PLATFORM_NAMES)('%s: a refusal before placing (429) spends no attempt and is never re-sent at once', async (name) => {
    const p = await startCase(name);
    try {
      const campaignId = await makeCampaign(db, p.settings(p.baseUrl));
      const [lead] = await seedLeads(db, campaignId, [{}]);
      p.refuseNextCreate();
      await worker(campaignId).runOnce();
      expect(p.creates()).toHaveLength(1);
      expect(await attemptRows(db, lead!)).toMatchObject([{ state: 'closed', outcome: 'not-placed', counts: 0 }]);
      expect(await leadRow(db, lead!)).toMatchObject({ attempts: 0, claimed_by: null });
    } finally {
      await p.close();
    }
  });

  it.each(PLATFORM_NAMES)(
    '%s: a create in flight when the dialer aborts runs to its answer, and the call it placed is hung up at once',
    async (name) => {
      const p = await startCase(name);
      try {
        const campaignId = await makeCampaign(db, p.settings(p.baseUrl));
        const [lead] = await seedLeads(db, campaignId, [{}]);
        p.slowNextCreate();
        const w = worker(campaignId);
        const running = w.run();
        while (p.creates().length === 0) await new Promise((r) => setTimeout(r, 5));
        // no grace: the call in flight (its create unanswered) is aborted at once
        await w.stop(0);
        await running;
        expect(p.creates()).toHaveLength(1);
        expect(p.hangUps()).toHaveLength(1);
        // placed, so recorded: the attempt waits for the platform's report of the call's end
        const [attempt, ...more] = await attemptRows(db, lead!);
        expect(more).toEqual([]);
        expect(attempt).toMatchObject({ state: 'accepted', counts: 1 });
        expect(p.hangUps()[0]!.path + p.hangUps()[0]!.raw).toContain(attempt!.provider_call_id!);
      } finally {
        await p.close();
      }
    },
  );

  it('--calls-per-second spaces the calls a dialer starts for the campaign', async () => {
    const p = await startCase('twilio');
    try {
      const campaignId = await makeCampaign(db, { ...p.settings(p.baseUrl), concurrency: 3, calls_per_second: 4 });
      const leads = await seedLeads(db, campaignId, [{}, {}, {}]);
      const t0 = Date.now();
      await worker(campaignId).runOnce();
      expect(p.creates()).toHaveLength(3);
      const starts = (await Promise.all(leads.map((id) => attemptRows(db, id)))).map(([a]) => Number(a!.started_at)).sort((x, y) => x - y);
      // 4 a second: the n-th call starts no earlier than n × 250 ms after the run began (timers may
      // fire late under load, never early; a few ms of slack for their granularity)
      expect(starts[1]! - t0).toBeGreaterThanOrEqual(240);
      expect(starts[2]! - t0).toBeGreaterThanOrEqual(490);
    } finally {
      await p.close();
    }
  });

  it('without PUBLIC_URL a platform campaign is not dialled, and says why', async () => {
    const p = await startCase('vapi');
    try {
      const campaignId = await makeCampaign(db, p.settings(p.baseUrl));
      const row = (await db.campaigns.byId(campaignId))!;
      expect(() => providerFor(row, {})).toThrow(/the vapi provider needs PUBLIC_URL, the address at which vapi reaches `leadline serve`/);
      const [lead] = await seedLeads(db, campaignId, [{}]);
      await worker(campaignId, { publicUrl: undefined }).runOnce();
      expect(p.creates()).toEqual([]);
      expect(await attemptRows(db, lead!)).toEqual([]);
    } finally {
      await p.close();
    }
  });
});

describe.each(await availableStores())('reconciliation past the call timeout on %s', (kind) => {
  let t: TestStore;
  let db: Store;
  beforeAll(async () => {
    t = await createTestStore(kind);
    db = await t.open();
  });
  afterAll(async () => {
    await db.close();
    await t.drop();
  });
  const CALL_TIMEOUT_MS = 60_000;
  const worker = (campaignId: string, now = Date.now) =>
    new Dialer({ store: db, logger: silent, campaignIds: [campaignId], publicUrl: PUBLIC_URL, request: localRequester, now });
  const later = () => Date.now() + CALL_TIMEOUT_MS + 1000;

  async function placed(name: (typeof PLATFORM_NAMES)[number]) {
    const p = await startCase(name);
    const campaignId = await makeCampaign(db, { ...p.settings(p.baseUrl), call_timeout_ms: CALL_TIMEOUT_MS });
    const [lead] = await seedLeads(db, campaignId, [{}]);
    await worker(campaignId).runOnce();
    const [attempt] = await attemptRows(db, lead!);
    expect(attempt).toMatchObject({ state: 'accepted' });
    return { p, campaignId, lead: lead!, callId: attempt!.provider_call_id! };
  }

  it.each(PLATFORM_NAMES)('%s: a call whose webhook never came is looked up and closed with its outcome', async (name) => {
    const { p, campaignId, lead, callId } = await placed(name);
    try {
      p.busy(callId); // the call ended; its webhook is lost
      await worker(campaignId).runOnce();
      expect(await attemptRows(db, lead)).toMatchObject([{ state: 'accepted' }]); // not before the timeout
      await worker(campaignId, later).runOnce();
      expect(await attemptRows(db, lead)).toMatchObject([
        { state: 'closed', closed_by: 'timeout', outcome: name === 'bland' ? 'no-answer' : 'busy', counts: 1 },
      ]);
    } finally {
      await p.close();
    }
  });

  it.each(PLATFORM_NAMES)('%s: a call the platform does not know closes as unknown', async (name) => {
    const { p, campaignId, lead, callId } = await placed(name);
    try {
      p.forget(callId);
      await worker(campaignId, later).runOnce();
      expect(await attemptRows(db, lead)).toMatchObject([{ state: 'closed', closed_by: 'timeout', outcome: 'unknown' }]);
    } finally {
      await p.close();
    }
  });

  it.each(PLATFORM_NAMES)(
    '%s: a call still live at the timeout is hung up through the platform (an abort), and closes as unknown',
    async (name) => {
      const { p, campaignId, lead, callId } = await placed(name);
      try {
        p.live(callId);
        await worker(campaignId, later).runOnce();
        expect(p.hangUps()).toHaveLength(1);
        expect(await attemptRows(db, lead)).toMatchObject([
          { state: 'closed', outcome: 'unknown', reason: `still in progress on ${name} at the call timeout: hung up` },
        ]);
      } finally {
        await p.close();
      }
    },
  );

  it.each(PLATFORM_NAMES)(
    '%s: a platform that cannot be asked at the timeout leaves the attempt open, asked again a minute later',
    async (name) => {
      const { p, campaignId, lead, callId } = await placed(name);
      try {
        p.busy(callId); // the call ended; its webhook is lost
        p.resetNext(); // and the platform drops the first lookup
        const at = later();
        await worker(campaignId, () => at).runOnce();
        const [open] = await attemptRows(db, lead);
        // not closed as unknown: the call's outcome is there to be learnt (an answered person is not called again)
        expect(open).toMatchObject({ state: 'accepted', outcome: null, deadline_at: at + 60_000 });
        expect(Date.parse((await leadRow(db, lead))!.next_attempt_at!)).toBe(at + 60_000);
        await worker(campaignId, () => at + 30_000).runOnce();
        expect(await attemptRows(db, lead)).toMatchObject([{ state: 'accepted' }]);
        await worker(campaignId, () => at + 61_000).runOnce();
        expect(await attemptRows(db, lead)).toMatchObject([
          { state: 'closed', closed_by: 'timeout', outcome: name === 'bland' ? 'no-answer' : 'busy' },
        ]);
      } finally {
        await p.close();
      }
    },
  );

  it('a platform that still cannot be asked an hour past the timeout: the attempt closes as unknown', async () => {
    const { p, campaignId, lead } = await placed('vapi');
    try {
      await p.close(); // nobody answers any more
      await worker(campaignId, () => Date.now() + CALL_TIMEOUT_MS + 3_600_000 + 1000).runOnce();
      expect(await attemptRows(db, lead)).toMatchObject([{ state: 'closed', closed_by: 'timeout', outcome: 'unknown' }]);
    } finally {
      await p.close().catch(() => undefined);
    }
  });

  it.each(PLATFORM_NAMES)("%s: a dialer without PUBLIC_URL asks the platform about another dialer's call too", async (name) => {
    const { p, lead, callId } = await placed(name);
    try {
      p.busy(callId);
      const other = await makeCampaign(db, {});
      await new Dialer({ store: db, logger: silent, campaignIds: [other], request: localRequester, now: later }).runOnce();
      expect(await attemptRows(db, lead)).toMatchObject([
        { state: 'closed', closed_by: 'timeout', outcome: name === 'bland' ? 'no-answer' : 'busy' },
      ]);
    } finally {
      await p.close();
    }
  });
});
