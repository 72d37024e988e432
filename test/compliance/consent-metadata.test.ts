/**
 * A consent-required campaign's claim on PostgreSQL parsed every candidate
 * lead's metadata with `metadata::json ->> 'consentAt'`, which fails on text
 * the API accepts and stores (a NUL or an unpaired surrogate anywhere in the
 * metadata, stored by JSON.stringify as \u0000 / \ud800): one such lead
 * stopped every claim of its campaign. SQLite's json_extract reads the same
 * rows (src/store/shared/consent.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateCampaign } from '../../src/campaigns/service.js';
import { claimDue } from '../../src/dialer/claim.js';
import { availableStores } from '../helpers/db.js';
import { type Fixture, makeFixture } from '../helpers/fixture.js';

const T0 = Date.parse('2026-03-10T14:00:00.000Z');

describe.each(await availableStores())('consent gate over API-accepted metadata on %s', (kind) => {
  let f: Fixture;
  beforeAll(async () => {
    f = await makeFixture(kind);
  });
  afterAll(() => f.close());

  async function consentCampaign(
    name: string,
    metadata: Record<string, unknown>,
  ): Promise<{ campaignId: string; leadId: string; other: string }> {
    const { createCampaign } = await import('../../src/campaigns/service.js');
    const { campaignId } = await createCampaign(f.db, { companyId: f.ids.companyA, name });
    await updateCampaign(f.db, campaignId, {
      require_consent: 1,
      hours: 'mon-sun 00:00-24:00',
      local_window: '00:00-24:00',
      regional_rules: 'off',
    });
    const res = await f.request('POST', '/api/v1/leads/bulk', {
      body: {
        campaignId,
        leads: [
          { phoneNumber: '+14155550101', metadata },
          { phoneNumber: '+14155550102', metadata: { consentAt: '2026-03-01T10:00:00Z' } },
        ],
      },
    });
    expect(res.status).toBe(200); // the API accepts and stores the metadata
    const [leadId, other] = res.body.data.createdIds;
    return { campaignId, leadId, other };
  }

  const claimAll = (campaignId: string) =>
    claimDue(f.db, { campaignId, maxAttempts: 3, workerId: 'w1', limit: 10, now: T0, leaseMs: 60_000 });

  it('a NUL character in another metadata field does not stop the claim', async () => {
    const c = await consentCampaign('nul', { consentAt: '2026-03-01T10:00:00Z', note: 'a\u0000b' });
    const claimed = await claimAll(c.campaignId);
    expect(claimed.map((l) => l.id).sort()).toEqual([c.leadId, c.other].sort());
  });

  it('an unpaired surrogate in another metadata field does not stop the claim', async () => {
    const c = await consentCampaign('surrogate', { consentAt: '2026-03-01T10:00:00Z', note: 'x\ud800y' });
    const claimed = await claimAll(c.campaignId);
    expect(claimed.map((l) => l.id).sort()).toEqual([c.leadId, c.other].sort());
  });

  it('a key that only looks like consentAt once its escapes are read is not consent; a backslash before u0000 is text', async () => {
    const lone = await consentCampaign('key-surrogate', { 'consentAt\ud800': '2026-03-01T10:00:00Z' });
    expect((await claimAll(lone.campaignId)).map((l) => l.id)).toEqual([lone.other]);
    const nul = await consentCampaign('key-nul', { 'consentAt\u0000': '2026-03-01T10:00:00Z', note: '\\u0000' });
    expect((await claimAll(nul.campaignId)).map((l) => l.id)).toEqual([nul.other]);
    const text = await consentCampaign('backslash', { consentAt: '2026-03-01T10:00:00Z', note: '\\u0000 and \\\u0000' });
    expect((await claimAll(text.campaignId)).map((l) => l.id).sort()).toEqual([text.leadId, text.other].sort());
  });

  it("nextDue of a campaign holding such a lead answers (the idle dialer's check)", async () => {
    const c = await consentCampaign('nextdue', { consentAt: '2026-03-01T10:00:00Z', note: '\u0000' });
    await expect(f.db.queue.nextDue(c.campaignId, null)).resolves.toBe(0);
  });
});
