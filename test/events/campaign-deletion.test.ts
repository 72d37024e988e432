/**
 * Deleting a campaign (the dashboard; deleteCampaign) deletes its leads, and
 * each of them leaves its lead.deleted event in the same transaction, as any
 * deleted lead does: a system mirroring the leads through webhooks or the
 * pull API would otherwise keep them for ever. The events come 1000 to a row,
 * so a large campaign makes no outsized row. The events table is read
 * directly: no wait for PostgreSQL's readable horizon. docs/events.md.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCampaign, deleteCampaign } from '../../src/campaigns/service.js';
import { closingFor } from '../../src/dialer/attempts.js';
import { claimDue } from '../../src/dialer/claim.js';
import { leadRow, seedLeads } from '../dialer/support.js';
import { availableStores } from '../helpers/db.js';
import { type Fixture, makeFixture } from '../helpers/fixture.js';
import { expectError, ok, phone, phoneLeads, seed } from '../api/support.js';

describe.each(await availableStores())('campaign deletion events on %s', (kind) => {
  let f: Fixture;
  beforeAll(async () => {
    f = await makeFixture(kind);
  });
  afterAll(() => f.close());

  /** the lead.deleted rows of the campaign, oldest first */
  const deletedRows = async (campaignId: string) =>
    (await f.db.events.after(0, ['lead.deleted'], 1000)).filter((r) => r.campaign_id === campaignId);

  it("each of a deleted campaign's leads gets its lead.deleted event, with its external id", async () => {
    const { campaignId } = await createCampaign(f.db, { companyId: f.ids.companyB, name: 'to delete' });
    const leads: { leadId: string; externalId: string | null }[] = [];
    for (const externalId of ['crm-1', null]) {
      const body = { campaignId, phoneNumber: phone(), ...(externalId ? { externalId } : {}) };
      leads.push({ leadId: ok(await f.request('POST', '/api/v1/leads', { key: f.keys.writeB, body }), 201).leadId, externalId });
    }
    expect(await deleteCampaign(f.db, campaignId)).toBe(2);

    const rows = await deletedRows(campaignId);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.company_id).toBe(f.ids.companyB);
    const items = JSON.parse(rows[0]!.items);
    expect(items).toEqual(expect.arrayContaining(leads));
    expect(items).toHaveLength(2);
    // the campaign is gone: the pull API answers its id not found; the company's feed carries the events
    expectError(
      await f.request('GET', '/api/v1/events', { key: f.keys.writeB, query: { campaignId } }),
      404,
      'Campaign not found or access denied',
    );
  });

  it('a large campaign: every lead once, 1000 to an event row, in lead order', async () => {
    const { campaignId } = await createCampaign(f.db, { companyId: f.ids.companyB, name: 'large' });
    const ids = await seed(f, campaignId, phoneLeads(2500), f.keys.writeB);
    expect(await deleteCampaign(f.db, campaignId)).toBe(2500);

    const rows = await deletedRows(campaignId);
    expect(rows.map((r) => r.count)).toEqual([1000, 1000, 500]);
    const deleted = rows.flatMap((r) => JSON.parse(r.items).map((i: { leadId: string }) => i.leadId));
    expect(deleted).toEqual(ids);
  });

  it('a campaign with no leads leaves no event', async () => {
    const { campaignId } = await createCampaign(f.db, { companyId: f.ids.companyB, name: 'empty' });
    expect(await deleteCampaign(f.db, campaignId)).toBe(0);
    expect(await deletedRows(campaignId)).toEqual([]);
  });

  it('is refused while a call of the campaign is in progress: nothing is deleted, no event; once it has ended, it goes', async () => {
    const { campaignId } = await createCampaign(f.db, { companyId: f.ids.companyB, name: 'calling' });
    const [leadId] = await seedLeads(f.db, campaignId, [{}, {}]);
    const now = Date.now();
    const [lead] = await claimDue(f.db, { campaignId, maxAttempts: 3, workerId: 'w1', limit: 1, now, leaseMs: 60_000 });
    const attemptId = 'at_in_progress';
    const opening = { attemptId, lead: lead!, phoneNumber: lead!.phoneNumber, startedAt: now, deadlineAt: now + 60_000 };
    expect(await f.db.queue.open([opening], now)).toEqual(['opened']);
    await expect(deleteCampaign(f.db, campaignId)).rejects.toMatchObject({
      code: 'conflict',
      message:
        '1 call of this campaign is in progress: pause it (set its hours to never), and delete it once they have ended (a running dialer closes the calls nobody follows)',
    });
    expect(await f.db.campaigns.byId(campaignId)).toBeDefined();
    expect(await leadRow(f.db, leadId!)).toBeDefined();
    expect(await deletedRows(campaignId)).toEqual([]);
    // the call ends
    await f.db.queue.close(
      [
        closingFor(
          lead!,
          attemptId,
          { success: true, outcome: 'answered', reason: null, durationSeconds: 5, counts: true, finishedAt: now + 1 },
          { defaultMs: 0, byOutcome: '' },
        ),
      ],
      'dialer',
      now + 1,
    );
    expect(await deleteCampaign(f.db, campaignId)).toBe(2);
    expect(await f.db.campaigns.byId(campaignId)).toBeUndefined();
  });
});
