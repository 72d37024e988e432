/**
 * /docs in headless Chromium: the page renders the served document under the
 * server's security headers, loads nothing from another host, and a user can
 * authorize with a key and run a real call.
 */
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Fixture, makeFixture } from '../helpers/fixture.js';
import { launch, runBrowserSuite } from '../web/browser-support.js';

describe.skipIf(!runBrowserSuite)('the docs page in a real browser', () => {
  let f: Fixture;
  let browser: Browser;
  let base: string;

  beforeAll(async () => {
    [f, browser] = await Promise.all([makeFixture('sqlite'), launch()]);
    await f.app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(f.app.server.address() as AddressInfo).port}`;
    await f.request('POST', '/api/v1/leads', {
      body: { campaignId: f.ids.campaignA, phoneNumber: '+14155550700', metadata: { name: 'Ann' } },
    });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await f?.close();
  });

  it('renders every operation, and runs "list leads" with the key the user enters', async () => {
    const page = await browser.newPage();
    const problems: string[] = [];
    const elsewhere: string[] = [];
    page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
    page.on('pageerror', (e) => problems.push(e.message));
    page.on('request', (r) => !r.url().startsWith(base) && !r.url().startsWith('data:') && elsewhere.push(r.url()));

    await page.goto(`${base}/docs`);
    await page.locator('#operations-leads-listLeads').waitFor();
    const doc = (await f.request('GET', '/api/v1/openapi.json', { key: null })).body as { paths: Record<string, object> };
    const operations = Object.values(doc.paths).reduce((n, ops) => n + Object.keys(ops).length, 0);
    expect(operations).toBeGreaterThanOrEqual(13);
    expect(await page.locator('.opblock').count()).toBe(operations);

    await page.getByRole('button', { name: 'Authorize' }).first().click();
    await page.locator('#api_key_value').fill(f.keys.readA);
    await page.locator('.modal-ux button.authorize').click();
    await page.locator('.modal-ux button.btn-done').click();

    // "Try it out" is on from the start (uiConfig.tryItOutEnabled)
    const list = page.locator('#operations-leads-listLeads');
    await list.locator('.opblock-summary').click();
    await list.locator('tr[data-param-name="campaignId"] input').fill(f.ids.campaignA);
    await list.getByRole('button', { name: 'Execute' }).click();
    const body = list.locator('.responses-wrapper .live-responses-table .microlight').first();
    await expect.poll(() => body.innerText(), { timeout: 10_000 }).toContain('+14155550700');
    expect(await list.locator('.live-responses-table tbody .response-col_status').first().innerText()).toContain('200');

    expect(elsewhere).toEqual([]);
    expect(problems).toEqual([]);
  }, 30_000);
});
