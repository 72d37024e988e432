/**
 * What the dialer keeps beside a call must never cost the call its record: the count of calls not
 * placed in a row (not-placed.ts) failing to be written still leaves the attempt closed with what
 * the provider answered. A call this dialer hung up before its request went out is no platform's
 * refusal and counts towards no pause. And under --calls-per-second the slot is taken after the
 * predial lookup, so that what is spaced is the provider's requests. docs/dialer.md.
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { type CallDeps, dialLead } from '../../src/dialer/call.js';
import { loadDialerCampaigns } from '../../src/dialer/campaign.js';
import { claimDue } from '../../src/dialer/claim.js';
import { Dialer } from '../../src/dialer/worker.js';
import type { CampaignStore } from '../../src/store/campaigns.js';
import type { Store } from '../../src/store/index.js';
import { availableStores, useStore } from '../helpers/db.js';
import { closedPortUrl } from '../providers/closed-port.js';
import { startStub } from './http-stub.js';
import { attemptRows, expectHeldBackNotPlaced, leadRow, makeCampaign, seedLeads } from './support.js';

const silent = pino({ level: 'silent' });
const T0 = Date.parse('2026-03-10T14:00:00.000Z');
const busy = () => new Error('SQLITE_BUSY: database is locked');

describe.each(await availableStores())('the dialer’s bookkeeping on %s', (kind) => {
  let db: Store;
  useStore(kind, (opened) => {
    db = opened;
  });

  /** the store as the dialer sees it, with some of the campaigns' writes failing */
  const failing = (writes: Partial<CampaignStore>): Store => ({ ...db, campaigns: Object.assign(Object.create(db.campaigns), writes) });

  it('an answered call whose end of a not-placed run cannot be written is still recorded: the lead concluded', async () => {
    const campaignId = await makeCampaign(db);
    const [leadId] = await seedLeads(db, campaignId, [{}]);
    // two calls not placed before: this placed one ends the run, a write
    await db.kysely.updateTable('campaigns').set({ not_placed_streak: 2 }).where('id', '=', campaignId).execute();
    let tries = 0;
    const store = failing({
      placed: async () => {
        tries++;
        throw busy();
      },
    });
    const run = await new Dialer({
      store,
      logger: silent,
      campaignIds: [campaignId],
      now: () => T0,
      random: () => 0,
      simulateDurationMs: [0, 0],
    }).runOnce();
    expect(tries).toBe(1);
    expect(run).toMatchObject({ attempts: 1, concluded: 1 });
    expect(await attemptRows(db, leadId!)).toMatchObject([{ state: 'closed', closed_by: 'dialer', outcome: 'answered', counts: 1 }]);
    expect(await leadRow(db, leadId!)).toMatchObject({ status: 'concluded', attempts: 1, claimed_by: null });
    // the run's end is left for the next placed call to write
    expect((await db.campaigns.byId(campaignId))!.not_placed_streak).toBe(2);
  });

  it('a call not placed whose count cannot be written is still closed as not placed: no attempt spent, held back ~30 s', async () => {
    const campaignId = await makeCampaign(db, { provider: 'webhook', provider_url: `${await closedPortUrl()}/down` });
    const [leadId] = await seedLeads(db, campaignId, [{}]);
    const store = failing({
      notPlaced: async () => {
        throw busy();
      },
    });
    await new Dialer({ store, logger: silent, campaignIds: [campaignId], now: () => T0 }).runOnce();
    expect(await attemptRows(db, leadId!)).toMatchObject([{ state: 'closed', closed_by: 'dialer', outcome: 'not-placed', counts: 0 }]);
    await expectHeldBackNotPlaced(db, leadId!, T0);
  });

  /** a claimed lead of a campaign, its dialer settings, and call deps that record what ran */
  async function claimedLead(settings: Parameters<typeof makeCampaign>[1], lead: Parameters<typeof seedLeads>[2][number] = {}) {
    const campaignId = await makeCampaign(db, settings);
    const [leadId] = await seedLeads(db, campaignId, [lead]);
    const [claimed] = await claimDue(db, { campaignId, maxAttempts: 3, workerId: 'w1', limit: 1, now: T0, leaseMs: 60_000 });
    const [campaign] = await loadDialerCampaigns(db, [campaignId], { random: () => 0, simulateDurationMs: [0, 0] }, () => {});
    const steps: string[] = [];
    const deps: CallDeps = {
      store: db,
      now: () => T0,
      predialTimeoutMs: 1000,
      open: async (o) => (await db.queue.open([o], T0))[0]!,
      close: async (x) => (await db.queue.close([x], 'dialer', T0))[0]!,
      notPlaced: async () => {
        steps.push('counted not placed');
        return 30_000;
      },
      placed: async () => {
        steps.push('placed');
      },
      pace: async () => {
        steps.push('paced');
      },
    };
    return { leadId: leadId!, lead: claimed!, campaign: campaign!, deps, steps };
  }

  it('a call this dialer stopped after its attempt was written is not placed, counts towards no pause, and is due at once', async () => {
    const { leadId, lead, campaign, deps, steps } = await claimedLead({
      provider: 'webhook',
      provider_url: `${await closedPortUrl()}/down`,
    });
    const abort = new AbortController();
    // stop() past its grace (or the claim lost) lands while the attempt is being written
    const open = deps.open;
    deps.open = async (o) => {
      const opened = await open(o);
      abort.abort('shutdown');
      return opened;
    };
    expect(await dialLead(deps, campaign, lead, abort.signal)).toMatchObject({ kind: 'not placed', retryInMs: 0 });
    expect(steps).toEqual(['paced']);
    expect(await attemptRows(db, leadId)).toMatchObject([
      { state: 'closed', outcome: 'not-placed', counts: 0, reason: 'the dialer stopped before placing the call' },
    ]);
    expect(await leadRow(db, leadId)).toMatchObject({
      status: 'raw',
      attempts: 0,
      claimed_by: null,
      next_attempt_at: new Date(T0).toISOString(),
    });
  });

  it("a webhook provider's request cut short by the dialer's stop counts towards no pause either", async () => {
    const { campaign, lead, deps, steps } = await claimedLead({ provider: 'webhook', provider_url: `${await closedPortUrl()}/down` });
    const abort = new AbortController();
    // the dialer stops while the request is on its way (here: as its refusal comes back)
    const provider = {
      ...campaign.provider,
      place: async (...args: Parameters<typeof campaign.provider.place>) => {
        const r = await campaign.provider.place(...args);
        abort.abort('shutdown');
        return r;
      },
    };
    expect(await dialLead(deps, { ...campaign, provider }, lead, abort.signal)).toMatchObject({ kind: 'not placed', retryInMs: 0 });
    expect(steps).toEqual(['paced']);
  });

  it('a prefetch lead takes its --calls-per-second slot after its predial lookup; one whose lookup failed takes none', async () => {
    const crm = await startStub(null, async () => {
      return { body: { phoneNumber: '+14155551301' } };
    });
    try {
      const { lead, campaign, deps, steps } = await claimedLead(
        { predial_url: crm.url, calls_per_second: 1 },
        { phoneNumber: null, externalId: 'crm-1' },
      );
      const pace = deps.pace!;
      deps.pace = async (c, signal) => {
        steps.push(`paced after ${crm.requests.length} lookup`);
        return pace(c, signal);
      };
      expect(await dialLead(deps, campaign, lead, new AbortController().signal)).toMatchObject({ kind: 'attempt', outcome: 'answered' });
      expect(steps).toEqual(['paced after 1 lookup', 'paced', 'placed']);
    } finally {
      await crm.close();
    }
    const failed = await claimedLead({ predial_url: crm.url, calls_per_second: 1 }, { phoneNumber: null, externalId: 'crm-2' });
    expect(await dialLead(failed.deps, failed.campaign, failed.lead, new AbortController().signal)).toMatchObject({
      kind: 'attempt',
      outcome: 'predial-failed',
    });
    expect(failed.steps).toEqual([]);
  });
});
