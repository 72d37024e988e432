/**
 * The dashboard with the keyboard alone, in headless Chromium: every control
 * of every page is reached by Tab, the focused one is visibly marked, and the
 * work of the pages (sign in, choose a password, create a key) is done with
 * Tab, typing, the arrow keys and Enter, never the mouse.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCampaign } from '../../src/campaigns/service.js';
import { api, launch, runBrowserSuite, type Site, startSite } from './browser-support.js';

/** what the focused element is, to the test: its accessible name or its label */
const focused = (page: Page) =>
  page.evaluate(() => {
    const e = document.activeElement as HTMLElement | null;
    if (!e || e === document.body) return '';
    const label = e.id ? document.querySelector(`label[for="${e.id}"]`)?.textContent : e.closest('label')?.textContent;
    return (e.getAttribute('aria-label') ?? label ?? e.textContent ?? (e as HTMLInputElement).value ?? '').trim();
  });

/** presses Tab until the focused element's name matches, or fails after `max` presses */
async function tabTo(page: Page, name: RegExp, max = 60): Promise<void> {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    if (name.test(await focused(page))) return;
  }
  throw new Error(`Tab never reached ${name}`);
}

/**
 * Tabs once around the page from the top. Returns the controls Tab never
 * reached, and those it reached without a visible focus mark.
 */
async function tabAround(page: Page): Promise<{ unreached: string[]; unmarked: string[]; reached: number }> {
  const total = await page.evaluate(() => {
    const controls = [
      ...document.querySelectorAll<HTMLElement>('a[href], button, input:not([type=hidden]), select, textarea, summary'),
    ].filter((e) => !(e as HTMLButtonElement).disabled && e.getClientRects().length > 0);
    for (const [i, e] of controls.entries()) e.dataset.kbd = String(i);
    // A radio group is one Tab stop (the arrow keys move inside it): its members share one id.
    const groups = new Map<string, string>();
    for (const e of controls) {
      if (!(e instanceof HTMLInputElement) || e.type !== 'radio') continue;
      const group = `${e.form?.id ?? ''}/${e.name}`;
      e.dataset.kbd = groups.get(group) ?? e.dataset.kbd;
      groups.set(group, e.dataset.kbd!);
    }
    (document.activeElement as HTMLElement | null)?.blur();
    return new Set(controls.map((e) => e.dataset.kbd)).size;
  });
  const reached = new Set<string>();
  const unmarked: string[] = [];
  for (let i = 0; i < total * 2 + 5; i++) {
    await page.keyboard.press('Tab');
    const at = await page.evaluate(() => {
      const e = document.activeElement as HTMLElement | null;
      if (!e?.dataset.kbd) return null;
      const style = getComputedStyle(e);
      const marked = (style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0) || style.boxShadow !== 'none';
      return {
        id: e.dataset.kbd,
        marked,
        name: `${e.tagName.toLowerCase()} ${(e.textContent || e.getAttribute('name') || '').trim().slice(0, 40)}`,
      };
    });
    if (at === null) continue;
    if (reached.has(at.id)) break; // round the page once: back at a control already seen
    reached.add(at.id);
    if (!at.marked) unmarked.push(at.name);
  }
  const unreached = await page.evaluate(
    (ids) =>
      [...document.querySelectorAll<HTMLElement>('[data-kbd]')]
        .filter((e) => !ids.includes(e.dataset.kbd!))
        .map((e) => e.outerHTML.slice(0, 80)),
    [...reached],
  );
  return { unreached, unmarked, reached: reached.size };
}

describe.skipIf(!runBrowserSuite)('dashboard with the keyboard alone', () => {
  let site: Site;
  let browser: Browser;
  let page: Page;
  let campaignId: string;

  beforeAll(async () => {
    [site, browser] = await Promise.all([startSite(), launch()]);
    ({ campaignId } = await createCampaign(site.db, { companyId: site.companyA, name: 'Keyboard campaign' }));
    page = await (await browser.newContext({ viewport: { width: 1366, height: 768 } })).newPage();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await site?.close();
  });

  it('signs in, chooses a password and creates a key without the mouse', async () => {
    await page.goto(`${site.base}/dashboard/login`);
    await tabTo(page, /^Email/);
    await page.keyboard.type('ada@acme.test');
    await tabTo(page, /^Password/);
    await page.keyboard.type(site.otpA);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Choose a password' }).waitFor();
    await tabTo(page, /^New password$/);
    await page.keyboard.type('typed on the keyboard only');
    await tabTo(page, /^New password again/);
    await page.keyboard.type('typed on the keyboard only');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Overview' }).waitFor();

    await tabTo(page, /^Company settings$/);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Create a key' }).waitFor();
    await tabTo(page, /^Name/);
    await page.keyboard.type('keyboard key');
    await tabTo(page, /^read \(list leads\)/);
    await page.keyboard.press('ArrowDown'); // the scope radio group: read → read + write
    expect(await focused(page)).toMatch(/^read \+ write/);
    await tabTo(page, /^Create key$/);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Key created' }).waitFor();
    const key = (await page.locator('#key-value').innerText()).trim();
    // the arrow key chose write: the key may create a lead
    expect((await api(site.base, key, 'POST', '/api/v1/leads', { campaignId, phoneNumber: '+14155550177' })).status).toBe(201);
  }, 60_000);

  it('on every page, Tab reaches every control and marks the focused one', async () => {
    const pages = ['/', '/campaigns', '/campaigns/new', `/campaigns/${campaignId}`, `/campaigns/${campaignId}/leads`, '/settings/keys'];
    for (const path of pages) {
      await page.goto(`${site.base}/dashboard${path === '/' ? '' : path}`);
      const { unreached, unmarked, reached } = await tabAround(page);
      expect({ path, unreached, unmarked }).toEqual({ path, unreached: [], unmarked: [] });
      expect(reached, path).toBeGreaterThan(3);
    }
  }, 60_000);
});
