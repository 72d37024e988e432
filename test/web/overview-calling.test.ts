/**
 * The overview says whether calling happens at all: whether a dialer that
 * serves the company's campaigns is running (its heartbeat), and which
 * campaigns are paused and why.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCampaign } from '../../src/campaigns/service.js';
import { heartbeat } from '../../src/dialer/heartbeat.js';
import { availableStores } from '../helpers/db.js';
import { type Fixture, makeFixture } from '../helpers/fixture.js';
import { type Browser, signedInUser } from './support.js';

describe.each(await availableStores())('the overview on %s', (kind) => {
  let f: Fixture;
  let a: Browser;
  let campaignId: string;
  let otherCompanysCampaign: string;
  const beat = (id: string, campaignIds: string[] | null, now: number, lastClaimAt: number | null = null) =>
    heartbeat(f.db, { id, campaignIds, startedAt: now, now, callsInFlight: 0, lastClaimAt });
  beforeAll(async () => {
    f = await makeFixture(kind);
    a = await signedInUser(f.app, f.db, f.ids.companyA, 'ops-a@example.com');
    ({ campaignId } = await createCampaign(f.db, { companyId: f.ids.companyA, name: 'Spring' }));
    ({ campaignId: otherCompanysCampaign } = await createCampaign(f.db, { companyId: f.ids.companyB, name: 'Theirs' }));
  });
  afterAll(() => f.close());

  it('says so when no dialer is running, or none serves these campaigns, or its heartbeat is old', async () => {
    expect((await a.get('/dashboard/')).body).toContain('No dialer is running');
    await beat('dl_other', [otherCompanysCampaign], f.clock.now);
    await beat('dl_stale', null, f.clock.now - 60_000);
    const body = (await a.get('/dashboard/')).body;
    expect(body).toContain('No dialer is running');
    expect(body).not.toContain('dl_other');
  });

  it('counts the running dialers that serve these campaigns, all-campaign dialers included', async () => {
    await beat('dl_mine', [campaignId], f.clock.now, f.clock.now - 5_000);
    await beat('dl_all', null, f.clock.now);
    const body = (await a.get('/dashboard/')).body;
    expect(body).not.toContain('No dialer is running');
    expect(body).toMatch(/Calling: 2 dialers running for these campaigns, last lead claimed \d{4}-\d\d-\d\d \d\d:\d\d UTC/);
  });

  it('names a paused campaign, its reason, and how to resume it', async () => {
    await f.db.campaigns.pause(campaignId, '20 calls in a row were not placed', f.clock.now);
    const body = (await a.get('/dashboard/')).body;
    expect(body).toContain('is paused: 20 calls in a row were not placed');
    expect(body).toContain(`leadline campaign resume ${campaignId}`);
  });
});
