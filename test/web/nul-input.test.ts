/**
 * Text holding a NUL (U+0000), from a form or an id in a URL. PostgreSQL
 * cannot store it, nor even compare it ("invalid byte sequence for encoding
 * UTF8: 0x00"), where SQLite stores it: each of these was a 500 on
 * PostgreSQL, the sign-in one without any account. Now the dashboard checks
 * such text against the storable-text rule (src/storable.ts) before any
 * query, so both databases answer as the docs say: a wrong sign-in is a 401,
 * a bad form a 400 with its message, an id that is not the company's a 404.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableStores } from '../helpers/db.js';
import { type Fixture, makeFixture } from '../helpers/fixture.js';
import { Browser, signedInUser } from './support.js';

const CAMPAIGN = {
  name: 'NUL check',
  timezone: 'UTC',
  hours: 'mon-fri 09:00-17:00',
  local_window: '08:00-21:00',
  max_attempts: '3',
  retry_delay: '30m',
  concurrency: '1',
  provider: 'simulate',
  simulate_success: '0.5',
};

describe.each(await availableStores())('NUL in dashboard input on %s', (kind) => {
  let f: Fixture;
  let a: Browser;
  beforeAll(async () => {
    f = await makeFixture(kind);
    a = await signedInUser(f.app, f.db, f.ids.companyA, 'nul@example.com');
  });
  afterAll(() => f.close());

  it('a sign-in with a NUL in the email is a 401 like any unknown email (no session needed)', async () => {
    const anon = new Browser(f.app, '10.55.0.1');
    const res = await anon.signIn('nul\u0000@example.com', 'whatever it is');
    expect(res.status).toBe(401);
    expect(res.body).toContain('That email and password do not match an account.');
  });

  it('a key name or a user email with a NUL is refused with a message (400), and nothing is created', async () => {
    const count = async () => [
      (await f.db.kysely.selectFrom('api_keys').select('id').execute()).length,
      (await f.db.kysely.selectFrom('users').select('id').execute()).length,
    ];
    const before = await count();
    await a.get('/dashboard/settings/keys');
    const key = await a.post('/dashboard/settings/keys', { name: 'a\u0000b', scope: 'read' });
    expect(key.status).toBe(400);
    expect(key.body).toContain('The key name holds a character that cannot be stored.');
    await a.get('/dashboard/settings/users');
    const user = await a.post('/dashboard/settings/users', { email: 'n\u0000@example.com' });
    expect(user.status).toBe(400);
    expect(user.body).toContain('not an email address');
    expect(await count()).toEqual(before);
  });

  it('a campaign name, secret or URL with a NUL is refused on its field (400)', async () => {
    for (const [field, value, label] of [
      ['name', 'x\u0000y', 'The name'],
      ['predial_secret', 's\u0000', 'Predial secret'],
      ['provider_secret', 's\u0000', 'Platform API key'],
      ['provider_webhook_secret', 's\u0000', 'Platform webhook secret'],
      ['predial_url', 'https://crm.example.com/\u0000', 'Predial URL'],
      ['provider_url', 'https://voice.example.com/\u0000', 'Provider URL'],
    ] as const) {
      await a.get('/dashboard/campaigns/new');
      const res = await a.post('/dashboard/campaigns', { ...CAMPAIGN, [field]: value });
      expect(res.status, field).toBe(400);
      expect(res.body, field).toContain(`${label} holds a character that cannot be stored`);
      expect(res.body, field).toMatch(new RegExp(`id="f-${field}"[^>]*aria-invalid="true"`));
    }
    expect(await f.db.kysely.selectFrom('campaigns').select('id').where('name', '=', CAMPAIGN.name).execute()).toEqual([]);
  });

  it("an id with a NUL, in a URL or a form, is a 404 like any id that is not the company's", async () => {
    const campaign = f.ids.campaignA;
    for (const url of [
      '/dashboard/campaigns/%00',
      '/dashboard/campaigns/%00/leads',
      '/dashboard/campaigns/%00/next-up',
      '/dashboard/campaigns/%00/delete',
      `/dashboard/campaigns/${campaign}/leads/%00`,
      `/dashboard/campaigns/${campaign}/leads/%00/delete`,
    ]) {
      expect((await a.get(url)).status, url).toBe(404);
    }
    await a.get('/dashboard/settings/webhooks');
    for (const url of [
      '/dashboard/settings/webhooks/%00/delete',
      '/dashboard/settings/webhooks/%00/enable',
      '/dashboard/campaigns/%00/recycle',
    ]) {
      expect((await a.post(url)).status, url).toBe(404);
    }
    expect((await a.post('/dashboard/settings/webhooks', { url: 'https://hooks.example.com/x', campaignId: 'c\u0000' })).status).toBe(404);
    await a.get('/dashboard/settings/keys');
    expect((await a.post('/dashboard/settings/keys', { name: 'reach', scope: 'read', campaignId: 'c\u0000' })).status).toBe(404);
  });
});
