/**
 * The dashboard's Next up (src/dialer/next-up.ts), on each store: the leads
 * in the order the claim takes them, those held back in their place with
 * explain's reasons, the later ones after; reading it claims and changes
 * nothing, and the claim that follows takes exactly the leads it numbered.
 */
import { describe, expect, it } from 'vitest';
import { claimDue } from '../../src/dialer/claim.js';
import { nextUp } from '../../src/dialer/next-up.js';
import { parseLocalWindow } from '../../src/scheduling/hours.js';
import type { Store } from '../../src/store/index.js';
import { availableStores, useStore } from '../helpers/db.js';
import { makeCampaign, seedLeads } from './support.js';

// a Monday, 15:00 UTC: 10:00 in New York (212), 07:00 in Los Angeles (415)
const NOW = Date.parse('2030-01-07T15:00:00Z');

describe.each(await availableStores())('next up on %s', (kind) => {
  let db: Store;
  useStore(kind, (opened) => {
    db = opened;
  });

  it('lists the leads in the claim order, held-back ones in place with their reasons, later ones after', async () => {
    const campaignId = await makeCampaign(db, { local_window: '09:00-17:00' });
    const campaign = (await db.campaigns.byId(campaignId))!;
    const [a, b, c, d, e, f, g, h] = await seedLeads(db, campaignId, [
      { phoneNumber: '+12125550001', priority: 5 },
      { phoneNumber: '+14155550002', priority: 5 },
      { phoneNumber: '+12125550003', priority: 5, scheduledFor: '2030-01-07T14:00:00.000Z' },
      { phoneNumber: '+12125550004', priority: 0 },
      { phoneNumber: '+12125550005', priority: 0 },
      { phoneNumber: '+12125550006', priority: 9, scheduledFor: '2030-01-08T15:00:00.000Z' },
      { phoneNumber: '+12125550007', priority: 0, scheduledFor: '2030-01-07T16:00:00.000Z' },
      { phoneNumber: '+12125550008', priority: 50 },
    ]);
    await db.kysely.updateTable('leads').set({ status: 'concluded' }).where('id', '=', h!).execute();
    await db.transaction((tx) => tx.dnc.add(campaign.company_id, ['+12125550004'], { source: 'import', reason: null, now: 0 }));

    const rows = async () => db.kysely.selectFrom('leads').selectAll().orderBy('seq').execute();
    const events = async () => (await db.kysely.selectFrom('events').select('id').execute()).length;
    const [before, eventsBefore] = [await rows(), await events()];

    const next = await nextUp(db, campaign, NOW, 50);
    expect(next.map((x) => [x.lead.id, x.turn, x.explanation.reasons])).toEqual([
      [a, 1, []],
      [b, null, ['local time']],
      [c, 2, []],
      [d, null, ["on the company's do-not-call list"]],
      [e, 3, []],
      [g, null, ['scheduled later']],
      [f, null, ['scheduled later']],
    ]);
    expect(next[1]!.explanation.nextDueAt).toEqual(new Date('2030-01-07T17:00:00Z'));
    expect(await nextUp(db, campaign, NOW, 4)).toHaveLength(4);
    // read-only: no claim, no zones filled, no event
    expect(await rows()).toEqual(before);
    expect(await events()).toBe(eventsBefore);

    const claimed = await claimDue(db, {
      campaignId,
      maxAttempts: campaign.max_attempts,
      workerId: 'w',
      limit: 10,
      now: NOW,
      leaseMs: 60_000,
      local: { window: parseLocalWindow('09:00-17:00'), windowSpec: '09:00-17:00', timezone: 'UTC' },
    });
    expect(claimed.map((l) => l.id)).toEqual([a, c, e]);
  });

  it('words a closed date and missing consent as explain does', async () => {
    const campaignId = await makeCampaign(db, { closed_dates: '2030-01-07', require_consent: 1 });
    const campaign = (await db.campaigns.byId(campaignId))!;
    const [without, withConsent] = await seedLeads(db, campaignId, [
      { phoneNumber: '+12125550101' },
      { phoneNumber: '+12125550102', metadata: { consentAt: '2029-12-01T10:00:00Z' } },
    ]);
    const next = await nextUp(db, campaign, NOW, 50);
    expect(next.map((x) => [x.lead.id, x.turn, x.explanation.reasons])).toEqual([
      [without, null, ['closed date', 'no consent recorded']],
      [withConsent, null, ['closed date']],
    ]);
    expect(next[1]!.explanation.details['closed date']).toBe('2030-01-07 in America/New_York');
  });

  it('is empty for a campaign with nothing left to call', async () => {
    const campaignId = await makeCampaign(db);
    expect(await nextUp(db, (await db.campaigns.byId(campaignId))!, NOW, 50)).toEqual([]);
  });
});
