/**
 * The dashboard end to end in headless Chromium: sign in, keys that work and
 * stop working, campaigns and leads, tenant isolation by URL, forged
 * cross-site posts. Takes the screenshots docs/dashboard.md shows.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Dialer } from '../../src/dialer/worker.js';
import { createLogger } from '../../src/logger.js';
import { api, launch, runBrowserSuite, screenshot, type Site, startAttacker, startSite } from './browser-support.js';

const NEW_PASSWORD = 'a long and private passphrase';

describe.skipIf(!runBrowserSuite)('dashboard in a real browser', () => {
  let site: Site;
  let browser: Browser;
  let ada: BrowserContext;
  let page: Page;
  const errors: string[] = [];
  let key = '';
  let campaignId = '';

  beforeAll(async () => {
    [site, browser] = await Promise.all([startSite(), launch()]);
    ada = await browser.newContext({ viewport: { width: 1366, height: 768 } });
    await ada.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: site.base });
    page = await ada.newPage();
    // A CSP violation or a script error shows up here: pages must work under helmet's policy.
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    page.on('pageerror', (e) => errors.push(e.message));
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await site?.close();
  });

  it('signs in with the one-time password and chooses a password', async () => {
    await page.goto(`${site.base}/dashboard/campaigns`);
    await expect.poll(() => page.url()).toContain('/dashboard/login?next=');
    await screenshot(page, 'sign-in');
    await page.getByLabel('Email').fill('ada@acme.test');
    await page.getByLabel('Password').fill(site.otpA);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Choose a password' }).waitFor();
    await screenshot(page, 'choose-password');
    await page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
    await page.getByLabel('New password again').fill(NEW_PASSWORD);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    expect(await page.locator('header').innerText()).toContain('Acme Outbound');
  });

  it('creates a key, shown once with a copy button, that works against the API', async () => {
    await page.getByRole('link', { name: 'Company settings' }).click();
    await page.getByLabel('Name').fill('CRM importer');
    await page.getByLabel('read + write').check();
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByRole('heading', { name: 'Key created' }).waitFor();
    await expect.poll(() => page.getByText('shown this once').isVisible()).toBe(true);
    key = (await page.locator('#key-value').innerText()).trim();
    expect(key).toMatch(/^ll_/);
    await page.getByRole('button', { name: 'Copy' }).click();
    await expect.poll(() => page.locator('#copy-status').innerText()).toBe('Copied to the clipboard.');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);
    await screenshot(page, 'key-created');
    const listed = await api(site.base, key, 'GET', `/api/v1/leads?campaignId=${site.campaignB}`);
    expect(listed.status).toBe(404); // a real key, but company B's campaign is out of its reach
  });

  it('creates a campaign, loads leads through the API and shows them in the table', async () => {
    await page.getByRole('link', { name: 'Campaigns' }).click();
    await page.getByRole('link', { name: 'New campaign' }).click();
    await page.getByLabel('Name').fill('Spring outreach');
    await page.getByLabel('Timezone').fill('America/New_York');
    await page.getByLabel('Calling hours').fill('mon-sun 00:00-24:00');
    await page.getByLabel('Local window').fill('00:00-24:00');
    // the test calls a US number at any hour: the state rules would hold it back at night
    await page.getByLabel('State calling rules').selectOption('off');
    await page.getByLabel('Maximum attempts').fill('2');
    await page.getByLabel('Retry delay').fill('0s');
    await screenshot(page, 'campaign-settings');
    await page.getByRole('button', { name: 'Create campaign' }).click();
    await page.getByText('Campaign created.').waitFor();
    const href = await page.getByRole('link', { name: 'Spring outreach' }).getAttribute('href');
    campaignId = /campaigns\/(cp_[^/]+)\/leads/.exec(href!)![1]!;
    const leads = Array.from({ length: 64 }, (_, i) => ({
      phoneNumber: `+1212555${String(1000 + i)}`,
      externalId: `crm-${1000 + i}`,
      priority: i % 3 === 0 ? 50 : 0,
      metadata: { name: `Lead ${i}` },
    }));
    const bulk = await api(site.base, key, 'POST', '/api/v1/leads/bulk', { campaignId, leads });
    expect(bulk.body.data.created).toBe(64);
    await page.reload();
    expect(await page.locator('tr', { hasText: 'Spring outreach' }).innerText()).toMatch(/64\s+0\s+0\s+0\s+64/);

    await page.getByRole('link', { name: 'Spring outreach' }).click();
    await expect.poll(() => page.locator('tbody tr').count()).toBe(50);
    await screenshot(page, 'leads');
    await page.getByRole('link', { name: 'Next page' }).click();
    await expect.poll(() => page.locator('tbody tr').count()).toBe(14);
    await page.getByLabel('Phone number or external id').fill('crm-1007');
    await page.getByLabel('Phone number or external id').press('Enter');
    await expect.poll(() => page.locator('tbody tr').count()).toBe(1);
    await page.getByRole('link', { name: '+12125551007' }).click();
    await page.getByRole('heading', { name: 'Lead +12125551007' }).waitFor();
    expect(await page.locator('pre').innerText()).toContain('"name": "Lead 7"');
  });

  it("shows the dialer's calls: overview, a lead's attempts and explain answer, and recycling", async () => {
    // Two passes of a real dialer (simulated calls, a fixed coin): some leads conclude, some exhaust.
    let seed = 42;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    for (let pass = 0; pass < 2; pass++) {
      await new Dialer({
        store: site.db,
        logger: createLogger('silent'),
        campaignIds: [campaignId],
        simulateDurationMs: [0, 0],
        random,
      }).runOnce();
    }
    await page.getByRole('link', { name: 'Overview' }).click();
    expect(await page.locator('.stats').first().innerText()).toMatch(/64\s+ALL LEADS/i);
    expect(await page.locator('table').first().locator('tbody tr').count()).toBe(10);
    await screenshot(page, 'overview');

    await page.getByRole('link', { name: 'Campaigns' }).click();
    await screenshot(page, 'campaigns');
    await page.getByRole('link', { name: 'Spring outreach' }).click();
    await page.getByLabel('Status').selectOption('exhausted');
    await page.getByRole('button', { name: 'Show' }).click();
    const exhausted = page.locator('tbody tr a').first();
    const phone = await exhausted.innerText();
    await exhausted.click();
    await page.getByRole('heading', { name: 'Why is this lead not being called?' }).waitFor();
    expect(await page.locator('main').innerText()).toContain('All its attempts are used.');
    expect(await page.locator('table tbody tr').count()).toBe(2);
    await screenshot(page, 'lead');

    await page.getByRole('link', { name: 'Spring outreach' }).click();
    await page.getByRole('link', { name: 'Recycle exhausted leads…' }).click();
    await screenshot(page, 'recycle-confirm');
    await page.getByRole('button', { name: 'Recycle leads' }).click();
    await page.getByText(/leads? (was|were) recycled/).waitFor();
    await page.getByLabel('Phone number or external id').fill(phone);
    await page.getByRole('button', { name: 'Show' }).click();
    await page.getByRole('link', { name: phone }).click();
    await page.getByRole('heading', { name: 'Why is this lead being called?' }).waitFor();
    expect(await page.locator('dl').innerText()).toMatch(/Attempts\s+2 of 4/);
  });

  it("a user of another company cannot see or touch company A's anything, also by URL", async () => {
    const bob = await browser.newContext({ viewport: { width: 1366, height: 768 } });
    const p = await bob.newPage();
    await p.goto(`${site.base}/dashboard/login`);
    await p.getByLabel('Email').fill('bob@globex.test');
    await p.getByLabel('Password').fill(site.otpB);
    await p.getByRole('button', { name: 'Sign in' }).click();
    await p.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
    await p.getByLabel('New password again').fill(NEW_PASSWORD);
    await p.getByRole('button', { name: 'Set password and continue' }).click();
    await p.getByRole('heading', { name: 'Overview' }).waitFor();
    for (const path of ['/', '/campaigns', '/settings/keys']) {
      await p.goto(`${site.base}/dashboard${path}`);
      const text = await p.locator('main').innerText();
      for (const secret of ['Spring outreach', 'CRM importer', campaignId]) expect(text).not.toContain(secret);
    }
    const leadA = (await api(site.base, key, 'GET', `/api/v1/leads?campaignId=${campaignId}&limit=1`)).body.data.leads[0]._id;
    const keyIdA = (await site.db.kysely.selectFrom('api_keys').select('id').where('name', '=', 'CRM importer').executeTakeFirstOrThrow())
      .id;
    for (const path of [
      `/campaigns/${campaignId}`,
      `/campaigns/${campaignId}/leads`,
      `/campaigns/${campaignId}/leads/${leadA}`,
      `/campaigns/${site.campaignB}/leads/${leadA}`,
      `/campaigns/${campaignId}/leads/${leadA}/delete`,
      `/settings/keys/${keyIdA}/revoke`,
    ]) {
      const res = await p.goto(`${site.base}/dashboard${path}`);
      expect(res!.status(), path).toBe(404);
      expect(await p.locator('main').innerText()).not.toContain('Spring outreach');
    }
    await screenshot(p, 'not-found');
    // Bob's own valid token, posted to company A's ids: nothing found, nothing changed.
    const token = await p.locator('input[name=_csrf]').first().inputValue();
    const statuses = await p.evaluate(
      async ({ urls, token }) =>
        Promise.all(urls.map(async (u) => (await fetch(u, { method: 'POST', body: new URLSearchParams({ _csrf: token }) })).status)),
      { urls: [`/dashboard/campaigns/${campaignId}/leads/${leadA}/delete`, `/dashboard/settings/keys/${keyIdA}/revoke`], token },
    );
    expect(statuses).toEqual([404, 404]);
    expect((await api(site.base, key, 'GET', `/api/v1/leads?campaignId=${campaignId}`)).body.data.count).toBe(64);
    await bob.close();
  });

  it('refuses a forged cross-site (and same-site, other-origin) POST while the user is signed in', async () => {
    const keysBefore = (await site.db.kysely.selectFrom('api_keys').select('id').execute()).length;
    const attacker = await startAttacker(`${site.base}/dashboard/settings/keys`, { name: 'forged', scope: 'write' });
    try {
      for (const origin of [`http://localhost:${attacker.port}`, `http://127.0.0.1:${attacker.port}`]) {
        const forged = page.waitForResponse((r) => r.url() === `${site.base}/dashboard/settings/keys` && r.request().method() === 'POST');
        await page.goto(origin);
        expect((await forged).status(), origin).toBe(403);
        await page.getByRole('heading', { name: 'Refused' }).waitFor();
      }
      await screenshot(page, 'forged-post-refused');
    } finally {
      await attacker.close();
    }
    expect((await site.db.kysely.selectFrom('api_keys').select('id').execute()).length).toBe(keysBefore);
  });

  it('revokes the key after confirming, and the API refuses it', async () => {
    await page.goto(`${site.base}/dashboard/settings/keys`);
    await screenshot(page, 'api-keys');
    await page.locator('tr', { hasText: 'CRM importer' }).getByRole('link', { name: 'Revoke…' }).click();
    await screenshot(page, 'revoke-confirm');
    await page.getByRole('button', { name: 'Revoke key' }).click();
    await page.getByText('The key was revoked.').waitFor();
    expect(await page.locator('tr', { hasText: 'CRM importer' }).innerText()).toContain('revoked');
    await expect
      .poll(async () => (await api(site.base, key, 'GET', `/api/v1/leads?campaignId=${campaignId}`)).body.error, { timeout: 3000 })
      .toBe('Invalid or inactive API key');
  });

  it('signs out, and saw no script or CSP error on any page', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.goto(`${site.base}/dashboard/`);
    await expect.poll(() => page.url()).toContain('/dashboard/login');
    // The forged pages' own requests fail on purpose; only the dashboard's errors count.
    expect(errors.filter((e) => !/403|Forbidden/.test(e))).toEqual([]);
  });
});
