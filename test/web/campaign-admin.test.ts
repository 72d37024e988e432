/**
 * Running a campaign from the dashboard (over app.inject, on each store):
 * renaming it, deleting it with its leads after a confirmation that says so,
 * and a settings form that reports every invalid field at once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCampaign } from '../../src/campaigns/service.js';
import { createKey } from '../../src/auth/service.js';
import { seed } from '../api/support.js';
import { availableStores } from '../helpers/db.js';
import { type Fixture, makeFixture } from '../helpers/fixture.js';
import { type Browser, signedInUser } from './support.js';

const SETTINGS = {
  timezone: 'Europe/Paris',
  hours: 'mon-fri 09:00-17:00',
  local_window: '08:00-21:00',
  max_attempts: '4',
  retry_delay: '1h30m',
  concurrency: '2',
  provider: 'simulate',
  provider_url: '',
  simulate_success: '0.5',
  predial_url: '',
};

describe.each(await availableStores())('campaign administration in the dashboard on %s', (kind) => {
  let f: Fixture;
  let a: Browser;
  let b: Browser;
  beforeAll(async () => {
    f = await makeFixture(kind);
    a = await signedInUser(f.app, f.db, f.ids.companyA, 'admin-a@example.com');
    b = await signedInUser(f.app, f.db, f.ids.companyB, 'admin-b@example.com');
  });
  afterAll(() => f.close());
  const campaignRow = (id: string) => f.db.kysely.selectFrom('campaigns').selectAll().where('id', '=', id).executeTakeFirst();

  it('renames a campaign from its settings form; an empty name is refused', async () => {
    const { campaignId } = await createCampaign(f.db, { companyId: f.ids.companyA, name: 'Old name' });
    const form = await a.get(`/dashboard/campaigns/${campaignId}`);
    expect(form.body).toContain('id="f-name" name="name" type="text" required maxlength="200" value="Old name"');
    const renamed = await a.post(`/dashboard/campaigns/${campaignId}`, { ...SETTINGS, name: '  New name  ' });
    expect(renamed.location).toBe(`/dashboard/campaigns/${campaignId}?done=saved`);
    expect((await campaignRow(campaignId))?.name).toBe('New name');
    const empty = await a.post(`/dashboard/campaigns/${campaignId}`, { ...SETTINGS, name: ' ' });
    expect(empty.status).toBe(400);
    expect(empty.body).toContain('Give the campaign a name of 1 to 200 characters');
    expect((await campaignRow(campaignId))?.name).toBe('New name');
    // another company's user cannot rename it
    await b.get('/dashboard/campaigns');
    expect((await b.post(`/dashboard/campaigns/${campaignId}`, { ...SETTINGS, name: 'Taken over' })).status).toBe(404);
    expect((await campaignRow(campaignId))?.name).toBe('New name');
  });

  it('reports every invalid field at once, focuses the first, and writes nothing', async () => {
    const { campaignId } = await createCampaign(f.db, { companyId: f.ids.companyA, name: 'Checked' });
    await a.get(`/dashboard/campaigns/${campaignId}`);
    const bad = await a.post(`/dashboard/campaigns/${campaignId}`, {
      ...SETTINGS,
      name: 'Checked',
      timezone: 'Mars/Base',
      hours: 'whenever',
      retry_delay: 'soon',
      simulate_success: '2',
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toContain('4 fields need fixing');
    for (const field of ['timezone', 'hours', 'retry_delay', 'simulate_success']) {
      expect(bad.body).toContain(`<li><a href="#f-${field}">`);
      expect(bad.body).toMatch(new RegExp(`id="f-${field}"[^>]*aria-invalid="true" aria-describedby="e-${field}"`));
    }
    // the first invalid field, not Name, has the focus
    expect(bad.body.match(/autofocus/g)).toHaveLength(1);
    expect(bad.body).toMatch(/id="f-timezone"[^>]*aria-invalid="true" aria-describedby="e-timezone" autofocus/);
    expect(bad.body).toContain('value="whenever"'); // what was typed is kept
    expect((await campaignRow(campaignId))?.timezone).toBe('UTC');

    const created = await a.get('/dashboard/campaigns/new');
    expect(created.body).toContain('leave empty for none');
    expect(created.body).not.toContain('keep the current one');
    const noName = await a.post('/dashboard/campaigns', { ...SETTINGS, name: '', concurrency: '0' });
    expect(noName.status).toBe(400);
    expect(noName.body).toContain('2 fields need fixing');
    expect(noName.body).toMatch(/id="f-name"[^>]*aria-invalid="true" aria-describedby="e-name" autofocus/);
  });

  it('deletes a campaign with its leads, attempts and restricted keys, after a confirmation that says so', async () => {
    const { campaignId } = await createCampaign(f.db, { companyId: f.ids.companyA, name: 'Doomed' });
    const { key } = await createKey(f.db, { companyId: f.ids.companyA, name: 'doomed key', scope: 'write', campaignId });
    await seed(f, campaignId, [
      { phoneNumber: '+14155550301' },
      { phoneNumber: '+14155550302' },
      { externalId: 'x-3', phoneNumber: '+14155550303' },
    ]);
    const other = await seed(f, f.ids.campaignA2, [{ phoneNumber: '+14155550304' }]);

    // another company's user finds nothing to delete
    await b.get('/dashboard/campaigns');
    expect((await b.get(`/dashboard/campaigns/${campaignId}/delete`)).status).toBe(404);
    expect((await b.post(`/dashboard/campaigns/${campaignId}/delete`)).status).toBe(404);

    expect((await a.get(`/dashboard/campaigns/${campaignId}`)).body).toContain(`/dashboard/campaigns/${campaignId}/delete`);
    // the API has read the campaign (and keeps it a second, campaigns/cache.ts)
    expect((await f.request('GET', '/api/v1/leads', { key: f.keys.readA, query: { campaignId } })).status).toBe(200);
    const confirm = await a.get(`/dashboard/campaigns/${campaignId}/delete`);
    expect(confirm.body).toContain('Its 3 leads and their call history are deleted with it');
    expect(confirm.body).toContain('The 1 API key restricted to this campaign is deleted too');
    const deleted = await a.post(`/dashboard/campaigns/${campaignId}/delete`);
    expect(deleted.location).toBe('/dashboard/campaigns?done=deleted&n=3');
    expect((await a.get(deleted.location!)).body).toContain('Campaign deleted, with its 3 leads.');

    expect(await campaignRow(campaignId)).toBeUndefined();
    // at once, not a second later: the API's cache dropped the campaign this process deleted
    expect((await f.request('GET', '/api/v1/leads', { key: f.keys.readA, query: { campaignId } })).status).toBe(404);
    const leads = await f.db.kysely.selectFrom('leads').select('id').where('campaign_id', '=', campaignId).execute();
    expect(leads).toEqual([]);
    expect(await f.db.kysely.selectFrom('api_keys').select('id').where('name', '=', 'doomed key').execute()).toEqual([]);
    f.clock.advance(1000); // past the key cache
    expect((await f.request('GET', '/api/v1/leads', { key, query: { campaignId } })).status).toBe(401);
    // the company's other campaigns keep their leads
    const kept = await f.db.kysely.selectFrom('leads').select('id').where('id', '=', other[0]!).execute();
    expect(kept).toHaveLength(1);
    expect((await a.get(`/dashboard/campaigns/${campaignId}`)).status).toBe(404);
  });
});
