/**
 * A platform campaign's settings through `leadline campaign create|update`, on both stores: the
 * flags, the adapter's option rules at create time, and secrets that are write-only and sealed
 * when SECRET_KEY is set.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { providerSecrets } from '../../src/campaigns/service.js';
import { parseSecretKey, secretsFor } from '../../src/crypto/secrets.js';
import type { Store } from '../../src/store/index.js';
import { cli } from '../dialer/dialer-process.js';
import { availableStores, createTestStore, type TestStore } from '../helpers/db.js';

const SECRET_KEY = Buffer.alloc(32, 7).toString('base64');
const VAPI = ['--provider', 'vapi', '--provider-secret', 'vapi-key-1', '--provider-option', 'assistantId=asst-1'];

describe.each(await availableStores())('platform campaign settings on %s', (kind) => {
  let t: TestStore;
  let db: Store;
  let env: Record<string, string>;
  let companyId: string;
  beforeAll(async () => {
    t = await createTestStore(kind);
    db = await t.open();
    env = { DATABASE_URL: t.url, SECRET_KEY: '' };
    ({ companyId } = JSON.parse((await cli(['company', 'create', '--name', 'Acme', '--json'], env)).stdout));
  });
  afterAll(async () => {
    await db.close();
    await t.drop();
  });
  const create = (args: string[], more: Record<string, string> = {}) =>
    cli(['campaign', 'create', '--company', companyId, '--name', 'Calls', ...args, '--json'], { ...env, ...more });
  const row = (id: string) => db.campaigns.byId(id);
  const count = async () => (await db.campaigns.ofCompany(companyId)).length;

  it('stores the platform, its options, base URL and secrets; show prints no secret', async () => {
    const r = await create([...VAPI, '--provider-option', 'phoneNumberId=pn-1', '--provider-base-url', 'http://127.0.0.1:9/vapi']);
    // only the warning that, without SECRET_KEY, the secrets are stored as given (the test below)
    expect(r.stderr.replace(/^database: .*\n/m, '')).toMatch(/^warning: SECRET_KEY is not set[^\n]*\n$/);
    const { campaignId } = JSON.parse(r.stdout);
    const c = (await row(campaignId))!;
    expect(c).toMatchObject({
      provider: 'vapi',
      provider_secret: 'vapi-key-1',
      provider_options: JSON.stringify({ assistantId: 'asst-1', phoneNumberId: 'pn-1' }),
      provider_base_url: 'http://127.0.0.1:9/vapi',
      provider_webhook_secret: null,
    });
    const shown = await cli(['campaign', 'show', campaignId, '--json'], env);
    expect(JSON.parse(shown.stdout)).toMatchObject({
      provider: 'vapi',
      providerOptions: { assistantId: 'asst-1', phoneNumberId: 'pn-1' },
      providerBaseUrl: 'http://127.0.0.1:9/vapi',
      providerSecretSet: true,
      providerWebhookSecretSet: false,
    });
    expect(shown.stdout).not.toContain('vapi-key-1');
    const text = await cli(['campaign', 'show', campaignId], env);
    expect(text.stdout).toContain('provider:      vapi http://127.0.0.1:9/vapi (assistantId=asst-1, phoneNumberId=pn-1; secret set)');
    expect(text.stdout).not.toContain('vapi-key-1');
  });

  it.each([
    ['a missing key', [...VAPI], /vapi: missing --provider-option phoneNumberId=/],
    [
      'an unknown key',
      [...VAPI, '--provider-option', 'phoneNumberId=pn', '--provider-option', 'fromNumber=+1'],
      /unknown --provider-option "fromNumber"/,
    ],
    ['an empty value', [...VAPI, '--provider-option', 'phoneNumberId='], /phoneNumberId is empty/],
    ['a key given twice', [...VAPI, '--provider-option', 'assistantId=b'], /--provider-option assistantId is given twice/],
    ['no =', [...VAPI, '--provider-option', 'phoneNumberId'], /--provider-option must be KEY=VALUE/],
    ['no secret', ['--provider', 'retell', '--provider-option', 'fromNumber=+14155550100'], /--provider retell needs --provider-secret/],
    [
      'a malformed number',
      ['--provider', 'retell', '--provider-secret', 'k', '--provider-option', 'fromNumber=4155550100'],
      /fromNumber must be an E.164/,
    ],
    [
      'bland without its webhook secret',
      ['--provider', 'bland', '--provider-secret', 'k', '--provider-option', 'task=Hi'],
      /needs --provider-webhook-secret/,
    ],
    [
      'options for simulate',
      ['--provider-option', 'a=b'],
      /--provider-option is for --provider vapi, retell, bland or twilio, not simulate/,
    ],
    ['an unknown provider', ['--provider', 'vonage'], /--provider must be one of simulate, webhook, vapi, retell, bland, twilio/],
  ])('refuses %s at create time (exit 2), and writes nothing', async (_name, args, message) => {
    const before = await count();
    const r = await create(args);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(await count()).toBe(before);
  });

  it('update: options given replace all of them, checked against the provider; the secret is kept unless given', async () => {
    const { campaignId } = JSON.parse((await create([...VAPI, '--provider-option', 'phoneNumberId=pn-1'])).stdout);
    const bad = await cli(['campaign', 'update', campaignId, '--provider-option', 'assistantId=asst-2'], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/vapi: missing --provider-option phoneNumberId/);
    expect((await row(campaignId))!.provider_options).toBe(JSON.stringify({ assistantId: 'asst-1', phoneNumberId: 'pn-1' }));
    // switching platform needs that platform's options
    const wrong = await cli(['campaign', 'update', campaignId, '--provider', 'twilio'], env);
    expect(wrong.stderr).toMatch(/twilio: unknown --provider-option "assistantId"/);
    const ok = await cli(
      [
        'campaign',
        'update',
        campaignId,
        '--provider',
        'twilio',
        '--provider-option',
        `accountSid=AC${'a'.repeat(32)}`,
        '--provider-option',
        'from=+14155550100',
        '--provider-option',
        'url=https://agent.example/twiml',
      ],
      env,
    );
    expect(ok.stderr.replace(/^database: .*\n/m, '')).toBe('');
    expect(await row(campaignId)).toMatchObject({ provider: 'twilio', provider_secret: 'vapi-key-1' });
    // back to simulate: the options stay stored, unused
    expect((await cli(['campaign', 'update', campaignId, '--provider', 'simulate'], env)).code).toBe(0);
  });

  it('without SECRET_KEY, a secret given is stored as given, and the command says so on stderr', async () => {
    const r = await create([...VAPI, '--provider-option', 'phoneNumberId=pn-1']);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/warning: SECRET_KEY is not set, so the secret is stored as given/);
    const { campaignId } = JSON.parse(r.stdout);
    expect((await row(campaignId))!.provider_secret).toBe('vapi-key-1');
    // a change that hands over no secret says nothing
    const quiet = await cli(['campaign', 'update', campaignId, '--max-attempts', '4'], env);
    expect(quiet.stderr.replace(/^database: .*\n/m, '')).toBe('');
  });

  it('with SECRET_KEY the secrets are sealed at rest, bound to their campaign, and open with the key', async () => {
    const r = await create(
      [
        '--provider',
        'bland',
        '--provider-secret',
        'bland-key',
        '--provider-webhook-secret',
        'bland-whsec',
        '--provider-option',
        'pathwayId=pw-1',
      ],
      { SECRET_KEY },
    );
    expect(r.stderr.replace(/^database: .*\n/m, '')).toBe('');
    const { campaignId } = JSON.parse(r.stdout);
    const c = (await row(campaignId))!;
    expect(c.provider_secret).toMatch(/^enc:v1:/);
    expect(c.provider_webhook_secret).toMatch(/^enc:v1:/);
    expect(JSON.stringify(c)).not.toContain('bland-key');
    const secrets = secretsFor(parseSecretKey(SECRET_KEY));
    expect(providerSecrets(c, secrets)).toEqual({ secret: 'bland-key', webhookSecret: 'bland-whsec' });
    // copied to another campaign, a sealed value does not open
    expect(() => providerSecrets({ ...c, id: 'cp_other' }, secrets)).toThrow(/integrity/);
    await cli(['campaign', 'update', campaignId, '--provider-secret', 'bland-key-2'], { ...env, SECRET_KEY });
    expect(providerSecrets((await row(campaignId))!, secrets).secret).toBe('bland-key-2');
  });
});
