/**
 * Running a campaign from the dashboard in headless Chromium: a settings form
 * that reports every invalid field at once and focuses the first, renaming,
 * and deleting after a confirmation that says what happens to the leads;
 * searching its leads by part of a number, and its Next up.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, launch, runBrowserSuite, screenshot, type Site, startSite } from './browser-support.js';
import { createKey } from '../../src/auth/service.js';
import { createCampaign } from '../../src/campaigns/service.js';
import { Dialer } from '../../src/dialer/worker.js';
import { createLogger } from '../../src/logger.js';

const NEW_PASSWORD = 'a long and private passphrase';

describe.skipIf(!runBrowserSuite)('running a campaign from the dashboard in a real browser', () => {
  let site: Site;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];

  beforeAll(async () => {
    [site, browser] = await Promise.all([startSite(), launch()]);
    page = await (await browser.newContext({ viewport: { width: 1366, height: 768 } })).newPage();
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${site.base}/dashboard/login`);
    await page.getByLabel('Email').fill('ada@acme.test');
    await page.getByLabel('Password').fill(site.otpA);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
    await page.getByLabel('New password again').fill(NEW_PASSWORD);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await site?.close();
  });

  it('reports every invalid field at once and focuses the first; the create form offers no secret to keep', async () => {
    await page.goto(`${site.base}/dashboard/campaigns/new`);
    expect(await page.locator('main').innerText()).not.toContain('keep the current one');
    await page.getByLabel('Name').fill('Autumn');
    await page.getByLabel('Calling hours').fill('whenever');
    await page.getByLabel('Retry delay').fill('soon');
    await page.getByLabel('Simulated success rate').fill('2');
    await page.getByRole('button', { name: 'Create campaign' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.innerText()).toContain('3 fields need fixing');
    expect(await alert.locator('li').count()).toBe(3);
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('f-hours');
    expect(await page.getByLabel('Retry delay').getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByLabel('Calling hours').inputValue()).toBe('whenever');
    await screenshot(page, 'campaign-form-errors');
    // each listed error leads to its field
    await alert.getByRole('link').nth(1).click();
    await expect.poll(() => page.evaluate(() => location.hash)).toBe('#f-retry_delay');
    // the refused form's 400 is logged by Chromium as a failed resource: expected here
    expect(errors).toEqual(['Failed to load resource: the server responded with a status of 400 (Bad Request)']);
    errors.length = 0;

    await page.getByLabel('Calling hours').fill('mon-sun 00:00-24:00');
    await page.getByLabel('Retry delay').fill('30m');
    await page.getByLabel('Simulated success rate').fill('0.5');
    await page.getByRole('button', { name: 'Create campaign' }).click();
    await page.getByText('Campaign created.').waitFor();
  });

  it('renames a campaign, then deletes it with its leads after a confirmation', async () => {
    await page
      .getByRole('row', { name: /Autumn/ })
      .getByRole('link', { name: 'Settings' })
      .click();
    const campaignId = /campaigns\/(cp_[^/?]+)/.exec(page.url())![1]!;
    await page.getByLabel('Name').fill('Autumn renewals');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('Settings saved.').waitFor();
    await page.getByRole('heading', { name: 'Autumn renewals: settings' }).waitFor();

    const { key } = await createKey(site.db, { companyId: site.companyA, name: 'loader', scope: 'write' });
    const leads = [{ phoneNumber: '+12125550101' }, { phoneNumber: '+12125550102' }];
    expect((await api(site.base, key, 'POST', '/api/v1/leads/bulk', { campaignId, leads })).status).toBe(200);

    await page.getByRole('link', { name: 'Delete campaign…' }).click();
    const question = await page.locator('main').innerText();
    expect(question).toContain('Its 2 leads and their call history are deleted with it');
    await screenshot(page, 'campaign-delete-confirm');
    await page.getByRole('link', { name: 'Cancel' }).click();
    await page.getByRole('heading', { name: 'Autumn renewals: settings' }).waitFor();
    await page.getByRole('link', { name: 'Delete campaign…' }).click();
    await page.getByRole('button', { name: 'Delete campaign and leads' }).click();
    await page.getByText('Campaign deleted, with its 2 leads.').waitFor();
    expect(await page.locator('main').innerText()).not.toContain('Autumn renewals');
    expect((await api(site.base, key, 'GET', `/api/v1/leads?campaignId=${campaignId}`)).status).toBe(404);
    expect(errors).toEqual([]);
  });

  it('the overview says whether a dialer is running', async () => {
    await page.getByRole('link', { name: 'Overview' }).click();
    expect(await page.locator('main').innerText()).toContain('No dialer is running');
    const now = Date.now();
    await site.db.dialers.beat({
      id: 'dl_browser',
      host: 'h',
      pid: 1,
      campaigns: 'all',
      started_at: now,
      heartbeat_at: now,
      calls_in_flight: 0,
      last_claim_at: null,
    });
    await page.reload();
    expect(await page.locator('main').innerText()).toContain('Calling: 1 dialer running for these campaigns');
    // the calls-per-hour chart is inline SVG, drawn on the server, allowed by the page's CSP
    expect(await page.locator('figure.chart svg[role="img"]').isVisible()).toBe(true);
    expect(await page.locator('figure.chart').innerText()).toContain('No calls in the last 24 hours.');
    expect(errors).toEqual([]);
  });

  it('Company settings → Users: adds a user with a one-time password shown once, and removes them', async () => {
    await page.getByRole('link', { name: 'Company settings' }).click();
    await page.getByRole('link', { name: 'Users' }).click();
    expect(await page.locator('main').innerText()).toContain('the last user cannot be removed');
    await page.getByLabel('Email').fill('colleague@acme.test');
    await page.getByRole('button', { name: 'Add user' }).click();
    await page.getByRole('heading', { name: 'User added' }).waitFor();
    expect((await page.locator('#otp-value').innerText()).trim()).toMatch(/^[a-z0-9]{5}(-[a-z0-9]{5}){3}$/);
    await screenshot(page, 'user-added');
    await page.getByRole('link', { name: 'Done: back to users' }).click();
    await page
      .getByRole('row', { name: /colleague@acme\.test/ })
      .getByRole('link', { name: 'Remove…' })
      .click();
    await page.getByRole('button', { name: 'Remove user' }).click();
    await page.getByText('The user was removed and signed out everywhere.').waitFor();
    expect(await page.locator('main').innerText()).not.toContain('colleague@acme.test');
    expect(errors).toEqual([]);
  });

  it('at 390 px wide no page scrolls sideways, and table rows stack with their column names', async () => {
    const { campaignId } = await createCampaign(site.db, { companyId: site.companyA, name: 'Phone check' });
    const { key } = await createKey(site.db, { companyId: site.companyA, name: 'phone loader', scope: 'write' });
    const leads = [{ phoneNumber: '+12125550111', externalId: 'a-very-long-external-identifier-from-the-crm-0001' }];
    await api(site.base, key, 'POST', '/api/v1/leads/bulk', { campaignId, leads });
    const phone = await (
      await browser.newContext({ viewport: { width: 390, height: 844 }, storageState: await page.context().storageState() })
    ).newPage();
    const paths = [
      '/',
      '/campaigns',
      '/campaigns/new',
      `/campaigns/${campaignId}`,
      `/campaigns/${campaignId}/leads`,
      `/campaigns/${campaignId}/next-up`,
      '/settings/keys',
      '/settings/users',
    ];
    for (const path of paths) {
      await phone.goto(`${site.base}/dashboard${path === '/' ? '' : path}`);
      const width = await phone.evaluate(() => document.documentElement.scrollWidth);
      expect({ path, width }).toEqual({ path, width: 390 });
    }
    await phone.goto(`${site.base}/dashboard/campaigns/${campaignId}/leads`);
    const cell = phone.locator('tbody tr td').first();
    expect(await cell.getAttribute('data-label')).toBe('Phone number');
    expect(await cell.evaluate((td) => getComputedStyle(td).display)).toBe('flex');
    expect(await cell.evaluate((td) => getComputedStyle(td, '::before').content)).toBe('"Phone number"');
    await screenshot(phone, 'phone-leads');
    await phone.close();
  });

  it('searches leads by the end of a number, and shows Next up with the reason for each lead held back', async () => {
    const { campaignId } = await createCampaign(site.db, {
      companyId: site.companyA,
      name: 'Winter calls',
      hours: 'mon-sun 00:00-24:00',
      local_window: '00:00-24:00',
      // New York numbers at any hour: the state rules would hold them back at night
      regional_rules: 'off',
      require_consent: 1,
    });
    const { key } = await createKey(site.db, { companyId: site.companyA, name: 'next loader', scope: 'write' });
    const consent = { consentAt: '2026-01-05T10:00:00Z' };
    const leads = [
      ...Array.from({ length: 6 }, (_, i) => ({ phoneNumber: `+1212555${4000 + i}`, externalId: `crm-${4000 + i}`, metadata: consent })),
      { phoneNumber: '+12125554100', externalId: 'crm-4100', priority: 80, metadata: consent },
      { phoneNumber: '+12125554101', externalId: 'crm-4101-without-consent', priority: 10 },
      { phoneNumber: '+12125554102', externalId: 'crm-4102', scheduledFor: '2099-01-05T15:00:00Z', metadata: consent },
    ];
    await api(site.base, key, 'POST', '/api/v1/leads/bulk', { campaignId, leads });
    await site.db.transaction((tx) => tx.dnc.add(site.companyA, ['+12125554002'], { source: 'dashboard', reason: null, now: Date.now() }));

    await page.goto(`${site.base}/dashboard/campaigns/${campaignId}/leads`);
    await page.getByLabel('Phone number or external id').fill('4101');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('tbody tr').count()).toBe(1);
    expect(await page.locator('tbody').innerText()).toContain('+12125554101');

    await page.getByRole('link', { name: 'Next up' }).click();
    await page.getByRole('heading', { name: 'Winter calls: next up' }).waitFor();
    const rows = page.locator('tbody tr');
    await expect.poll(() => rows.count()).toBe(9);
    const cells = async (i: number) => (await rows.nth(i).innerText()).replace(/\s+/g, ' ');
    expect(await cells(0)).toMatch(/^1 \+12125554100 crm-4100 80 called now now/);
    expect(await cells(1)).toContain('no consent recorded');
    expect(await cells(2)).toMatch(/^2 \+12125554000/);
    expect(await cells(4)).toContain("held back on the company's do-not-call list");
    expect(await cells(8)).toMatch(/\+12125554102 .*scheduled later.*2099-01-05 15:00 UTC/);
    await screenshot(page, 'next-up');
    expect(errors).toEqual([]);
  });

  it('pages leads with Next, Previous and First', async () => {
    const { campaignId } = await createCampaign(site.db, { companyId: site.companyA, name: 'Paged' });
    const { key } = await createKey(site.db, { companyId: site.companyA, name: 'pager', scope: 'write' });
    const leads = Array.from({ length: 120 }, (_, i) => ({ phoneNumber: `+1212555${2000 + i}` }));
    await api(site.base, key, 'POST', '/api/v1/leads/bulk', { campaignId, leads });
    await page.goto(`${site.base}/dashboard/campaigns/${campaignId}/leads`);
    const firstRow = () => page.locator('tbody tr td a').first().innerText();
    expect(await firstRow()).toBe('+12125552000');
    await page.getByRole('link', { name: 'Next page' }).click();
    await expect.poll(firstRow).toBe('+12125552050');
    await page.getByRole('link', { name: 'Next page' }).click();
    await expect.poll(firstRow).toBe('+12125552100');
    await page.getByRole('link', { name: 'Previous page' }).click();
    await expect.poll(firstRow).toBe('+12125552050');
    await page.getByRole('link', { name: 'First page' }).click();
    await expect.poll(firstRow).toBe('+12125552000');
    expect(await page.getByRole('link', { name: 'Previous page' }).count()).toBe(0);
    expect(errors).toEqual([]);
  });

  it('the overview charts the calls per hour by outcome, with durations', async () => {
    const { campaignId } = await createCampaign(site.db, {
      companyId: site.companyA,
      name: 'Charted',
      hours: 'mon-sun 00:00-24:00',
      local_window: '00:00-24:00',
      regional_rules: 'off',
      concurrency: 20,
    });
    const { key } = await createKey(site.db, { companyId: site.companyA, name: 'chart loader', scope: 'write' });
    const leads = Array.from({ length: 30 }, (_, i) => ({ phoneNumber: `+1212555${3000 + i}` }));
    await api(site.base, key, 'POST', '/api/v1/leads/bulk', { campaignId, leads });
    await new Dialer({ store: site.db, logger: createLogger('silent'), campaignIds: [campaignId], simulateDurationMs: [0, 0] }).runOnce();
    await page.getByRole('link', { name: 'Overview' }).click();
    const chart = page.locator('figure.chart');
    expect(await chart.locator('svg title').first().textContent()).toContain('30 calls');
    expect(await chart.locator('rect').count()).toBeGreaterThan(0);
    expect(await page.locator('main').innerText()).toContain('30 closed in 24 h');
    await screenshot(page, 'overview-chart');
    expect(errors).toEqual([]);
  });

  it('the overview refreshes itself in place; without JavaScript it reloads', async () => {
    await site.db.kysely.deleteFrom('dialers').execute();
    await page.goto(`${site.base}/dashboard/?refresh=5`);
    expect(await page.locator('main').innerText()).toContain('No dialer is running');
    await page.evaluate(() => Object.assign(window, { notReloaded: true }));
    const now = Date.now();
    await site.db.dialers.beat({
      id: 'dl_refresh',
      host: 'h',
      pid: 1,
      campaigns: 'all',
      started_at: now,
      heartbeat_at: now,
      calls_in_flight: 0,
      last_claim_at: null,
    });
    await expect.poll(() => page.locator('main').innerText(), { timeout: 15_000 }).toContain('Calling: 1 dialer running');
    expect(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true);

    const noScript = await browser.newContext({ javaScriptEnabled: false, storageState: await page.context().storageState() });
    const plain = await noScript.newPage();
    await plain.goto(`${site.base}/dashboard/?refresh=5`);
    await plain.waitForEvent('load', { timeout: 15_000 }); // the <noscript> meta refresh reloads the page
    await noScript.close();
    expect(errors).toEqual([]);
  });
});
