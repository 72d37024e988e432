/**
 * The dashboard's campaign form for the AI voice platforms, on both stores: the providers are
 * offered, options are checked by the platform's adapter as the CLI's are, and the secrets are
 * write-only (never sent back to the browser) and sealed when SECRET_KEY is set.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { providerSecrets } from '../../src/campaigns/service.js';
import { parseSecretKey, secretsFor } from '../../src/crypto/secrets.js';
import { availableStores } from '../helpers/db.js';
import { type Fixture, makeFixture } from '../helpers/fixture.js';
import { type Browser, signedInUser } from './support.js';

const SECRET_KEY = Buffer.alloc(32, 9).toString('base64');

const form = (over: Record<string, string> = {}): Record<string, string> => ({
  timezone: 'UTC',
  hours: 'mon-fri 09:00-17:00',
  local_window: '08:00-21:00',
  max_attempts: '3',
  retry_delay: '30m',
  concurrency: '2',
  provider: 'vapi',
  provider_url: '',
  provider_secret: 'vapi-key-dash',
  provider_option: 'assistantId=asst-1\r\nphoneNumberId=pn-1\r\n',
  provider_base_url: '',
  provider_webhook_secret: '',
  simulate_success: '0.5',
  predial_url: '',
  ...over,
});

describe.each(await availableStores())('the dashboard campaign form for the voice platforms on %s', (kind) => {
  let f: Fixture;
  let a: Browser;
  beforeAll(async () => {
    f = await makeFixture(kind, { env: { SECRET_KEY } });
    a = await signedInUser(f.app, f.db, f.ids.companyA, 'providers@example.com');
  });
  afterAll(() => f?.close());
  const byName = (name: string) => f.db.kysely.selectFrom('campaigns').selectAll().where('name', '=', name).executeTakeFirstOrThrow();

  it('offers the platforms, creates a vapi campaign with sealed write-only secrets, and edits it', async () => {
    const blank = await a.get('/dashboard/campaigns/new');
    for (const p of ['vapi', 'retell', 'bland', 'twilio']) expect(blank.body).toContain(`<option>${p}</option>`);
    expect(blank.body).toContain('Platform API key');

    expect((await a.post('/dashboard/campaigns', { ...form(), name: 'Voice' })).location).toBe('/dashboard/campaigns?done=created');
    const row = await byName('Voice');
    expect(row).toMatchObject({ provider: 'vapi', provider_options: JSON.stringify({ assistantId: 'asst-1', phoneNumberId: 'pn-1' }) });
    expect(row.provider_secret).toMatch(/^enc:v1:/);
    expect(providerSecrets(row, secretsFor(parseSecretKey(SECRET_KEY))).secret).toBe('vapi-key-dash');

    const edit = await a.get(`/dashboard/campaigns/${row.id}`);
    expect(edit.body).not.toContain('vapi-key-dash');
    expect(edit.body).toContain('Platform API key <span class="muted">(set)</span>');
    expect(edit.body).toContain('assistantId=asst-1\nphoneNumberId=pn-1</textarea>');

    // an empty secret keeps the stored one; options and base URL change
    const saved = await a.post(`/dashboard/campaigns/${row.id}`, {
      ...form(),
      provider_secret: '',
      provider_option: 'assistantId=asst-2\nphoneNumberId=pn-1',
      provider_base_url: 'https://vapi-proxy.example',
    });
    expect(saved.location).toBe(`/dashboard/campaigns/${row.id}?done=saved`);
    const after = await byName('Voice');
    expect(after).toMatchObject({ provider_base_url: 'https://vapi-proxy.example', provider_secret: row.provider_secret });
    expect(JSON.parse(after.provider_options)).toEqual({ assistantId: 'asst-2', phoneNumberId: 'pn-1' });
  });

  it.each([
    ['a missing option', { provider_option: 'assistantId=a' }, 'vapi: missing Platform options phoneNumberId='],
    [
      'an unknown option',
      { provider_option: 'assistantId=a\nphoneNumberId=b\nfromNumber=+1' },
      'unknown Platform options &quot;fromNumber&quot;',
    ],
    ['a line without =', { provider_option: 'assistantId' }, 'Platform options must be KEY=VALUE'],
    ['no API key', { provider_secret: '' }, 'Provider vapi needs Platform API key'],
    [
      'bland without its webhook secret',
      { provider: 'bland', provider_secret: 'k', provider_option: 'task=Hi' },
      'needs Platform webhook secret',
    ],
  ])('refuses %s with a 400 naming the field, and writes nothing', async (_name, over, message) => {
    const before = (await f.db.campaigns.ofCompany(f.ids.companyA)).length;
    await a.get('/dashboard/campaigns/new');
    const bad = await a.post('/dashboard/campaigns', { ...form(over), name: 'Refused' });
    expect(bad.status).toBe(400);
    expect(bad.body).toContain(message);
    expect((await f.db.campaigns.ofCompany(f.ids.companyA)).length).toBe(before);
  });
});
