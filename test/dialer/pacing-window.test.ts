/**
 * A call that waits for its --calls-per-second slot is looked at again when
 * the slot comes (src/dialer/call.ts): with calls queued for their slots, the
 * later ones may reach it after the called person's local window, or the
 * campaign's own hours, closed, or after the campaign was paused or made to
 * require consent the lead does not record. Such a call
 * is not placed: its lead is given back untouched, and the slot is left
 * unused; a worker that finds its campaign paused so claims nothing more
 * from it. docs/dialer.md "Calls per second".
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { type CampaignSettings, updateCampaign } from '../../src/campaigns/service.js';
import { Dialer } from '../../src/dialer/worker.js';
import type { Store } from '../../src/store/index.js';
import type { PacingStore } from '../../src/store/pacing.js';
import type { QueueStore } from '../../src/store/queue.js';
import { availableStores, useStore } from '../helpers/db.js';
import { attemptRows, leadRow, makeCampaign, seedLeads } from './support.js';

const silent = pino({ level: 'silent' });
const CLOSES_AT = Date.parse('2026-03-10T21:00:00.000Z');

describe.each(await availableStores())('a call waiting for its --calls-per-second slot on %s', (kind) => {
  let db: Store;
  useStore(kind, (opened) => {
    db = opened;
  });

  /**
   * Two leads, one call a second, two slots: the second call waits about a
   * second for its slot. The dialer's clock reads a second before 21:00 UTC
   * until that slot is reserved and the first call's attempt is written, then
   * 21:00 (`closeAtSecondSlot`): the first call starts before 21:00, and the
   * second one's wait ends after it. (Moved at the reservation alone, the
   * clock could read 21:00 when the first call, already checked, read its
   * start: under PgBouncer's extra round trips it did, in CI.)
   */
  const run = async (
    settings: CampaignSettings,
    o: { closeAtSecondSlot?: boolean; atSecondSlot?: (campaignId: string) => Promise<void>; slowClose?: boolean } = {},
  ) => {
    const campaignId = await makeCampaign(db, { timezone: 'UTC', concurrency: 2, calls_per_second: 1, ...settings });
    const leadIds = await seedLeads(db, campaignId, [{ metadata: { timezone: 'UTC' } }, { metadata: { timezone: 'UTC' } }]);
    let now = CLOSES_AT - 1000;
    let reserved = 0;
    // the first call's attempt is written (its start read from the clock) before the clock moves to 21:00
    let opened!: () => void;
    const firstOpened = new Promise<void>((resolve) => {
      opened = resolve;
    });
    const pacing: PacingStore = Object.create(db.pacing);
    pacing.reserve = async (...args) => {
      const second = ++reserved === 2;
      // the change comes once the first call's attempt is written: made earlier, the first call's
      // own look at the campaign could see it too (under PgBouncer's extra round trips it did, in
      // CI: no call at all)
      if (second && o.atSecondSlot) {
        await firstOpened;
        await o.atSecondSlot(campaignId);
      }
      const waitMs = await db.pacing.reserve(...args);
      if (second && o.closeAtSecondSlot) {
        await firstOpened;
        now = CLOSES_AT;
      }
      return waitMs;
    };
    const queue: QueueStore = Object.create(db.queue);
    queue.open = async (...args) => {
      const results = await db.queue.open(...args);
      opened();
      return results;
    };
    queue.close = async (...args) => {
      // the first call is still being recorded when the second is given back
      if (o.slowClose) await new Promise((done) => setTimeout(done, 1500));
      return db.queue.close(...args);
    };
    await new Dialer({
      store: { ...db, pacing, queue },
      logger: silent,
      campaignIds: [campaignId],
      now: () => now,
      random: () => 0,
      simulateDurationMs: [0, 0],
      claimTimeoutMs: 3_600_000,
    }).runOnce();
    const attempts = (await Promise.all(leadIds.map((id) => attemptRows(db, id)))).flat();
    const leads = await Promise.all(leadIds.map((id) => leadRow(db, id)));
    return { attempts, leads, reserved };
  };

  /** one call placed, before 21:00, and the other lead given back as it was: raw, no attempt, nobody holding it */
  const expectOneCallAndOneUntouched = (r: Awaited<ReturnType<typeof run>>) => {
    expect(r.attempts).toHaveLength(1);
    expect(Number(r.attempts[0]!.started_at)).toBeLessThan(CLOSES_AT);
    const untouched = r.leads.filter((l) => l?.attempts === 0);
    expect(untouched).toHaveLength(1);
    expect(untouched[0]).toMatchObject({ status: 'raw', claimed_by: null });
  };

  it('is not placed once the local window has closed during its wait', async () => {
    expectOneCallAndOneUntouched(await run({ local_window: '08:00-21:00' }, { closeAtSecondSlot: true }));
  });

  it("is not placed once the campaign's calling hours have ended during its wait", async () => {
    expectOneCallAndOneUntouched(await run({ hours: 'mon-sun 09:00-21:00' }, { closeAtSecondSlot: true }));
  });

  it('is not placed once the campaign was paused during its wait, and its lead is not claimed again', async () => {
    // paused (as a run of calls not placed pauses it) just as the second call reserves its slot
    const r = await run(
      {},
      { atSecondSlot: (campaignId) => db.campaigns.pause(campaignId, 'paused by the test', Date.now()), slowClose: true },
    );
    expectOneCallAndOneUntouched(r);
    // the worker learnt of the pause: the lead given back was not claimed again to wait for another slot
    expect(r.reserved).toBe(2);
  });

  it('is not placed once the campaign came to require consent during its wait, which its lead does not record', async () => {
    const r = await run(
      {},
      { atSecondSlot: (campaignId) => updateCampaign(db, campaignId, { require_consent: 1 }).then(() => undefined), slowClose: true },
    );
    expectOneCallAndOneUntouched(r);
  });

  // The settings as they are when the slot comes, not as the dialer read them at the claim
  it.each([
    ['a closed date for today', { closed_dates: '2026-03-10' }],
    ['a local window that has closed', { local_window: '06:00-07:00' }],
    ['calling hours that have ended', { hours: 'mon-sun 06:00-07:00' }],
  ] as const)('is not placed once %s was set during its wait', async (_what, change) => {
    const r = await run(
      {},
      { atSecondSlot: (campaignId) => updateCampaign(db, campaignId, change).then(() => undefined), slowClose: true },
    );
    expectOneCallAndOneUntouched(r);
  });

  it('is not placed once its settings were changed around the CLI to something that cannot be used', async () => {
    const r = await run(
      {},
      {
        atSecondSlot: (campaignId) =>
          db.kysely
            .updateTable('campaigns')
            .set({ regional_rules: 'US' })
            .where('id', '=', campaignId)
            .execute()
            .then(() => undefined),
        slowClose: true,
      },
    );
    expectOneCallAndOneUntouched(r);
  });
});
