/**
 * Real headless Chromium (Debian's package) driven by playwright-core, against
 * a leadline app listening on 127.0.0.1 with the real clock.
 *
 * Without /usr/bin/chromium the browser suite is skipped with a message, except
 * under CI=true, where it runs and fails: CI must never skip it silently.
 */
import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import type { FastifyInstance } from 'fastify';
import { createCampaign, createCompany } from '../../src/campaigns/service.js';
import { loadConfig } from '../../src/config.js';
import type { Store } from '../../src/store/index.js';
import { buildApp } from '../../src/http/app.js';
import { MemoryRateLimiter } from '../../src/ratelimit/memory.js';
import { createUser } from '../../src/web/accounts.js';
import { createTestStore, type TestStore } from '../helpers/db.js';
import { runOrSkip } from '../helpers/services.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const browserAvailable = existsSync(CHROMIUM);
export const runBrowserSuite = runOrSkip(browserAvailable, `${CHROMIUM} not found: skipping the browser tests (apt-get install chromium)`);

/** The flags this machine's Chromium needs (no sandbox as root, no calls home on a closed network). */
export function launch(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/**
 * Screenshots go to docs/screenshots only when asked
 * (SCREENSHOTS_DIR=docs/screenshots), so a plain test run leaves the tree clean.
 */
const SHOTS = process.env.SCREENSHOTS_DIR ? resolve(process.env.SCREENSHOTS_DIR) : mkdtempSync(join(tmpdir(), 'leadline-shots-'));
mkdirSync(SHOTS, { recursive: true });
export const screenshot = (page: Page, name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });

export interface Site {
  app: FastifyInstance;
  db: Store;
  base: string;
  companyA: string;
  companyB: string;
  campaignB: string;
  otpA: string;
  otpB: string;
  close(): Promise<void>;
}

export async function startSite(): Promise<Site> {
  const store: TestStore = await createTestStore('sqlite');
  const db = await store.open();
  const config = { ...loadConfig({}), database: store.config };
  const limiter = new MemoryRateLimiter();
  const app = await buildApp({ config, store: db, limiter });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as AddressInfo;
  const { companyId: companyA } = await createCompany(db, 'Acme Outbound');
  const { companyId: companyB } = await createCompany(db, 'Globex');
  const { campaignId: campaignB } = await createCampaign(db, { companyId: companyB, name: 'Globex winter' });
  const otpA = (await createUser(db, { companyId: companyA, email: 'ada@acme.test' })).oneTimePassword;
  const otpB = (await createUser(db, { companyId: companyB, email: 'bob@globex.test' })).oneTimePassword;
  return {
    app,
    db,
    base: `http://127.0.0.1:${port}`,
    companyA,
    companyB,
    campaignB,
    otpA,
    otpB,
    async close() {
      await app.close();
      await limiter.close();
      await db.close();
      await store.drop();
    },
  };
}

/** An attacker's page on another origin that posts a form to the dashboard as soon as it loads. */
export async function startAttacker(target: string, fields: Record<string, string>): Promise<{ port: number; close(): Promise<void> }> {
  const inputs = Object.entries(fields)
    .map(([k, v]) => `<input type="hidden" name="${k}" value="${v}">`)
    .join('');
  const server: Server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(
      `<!doctype html><form id="f" method="post" action="${target}">${inputs}</form><script>document.getElementById('f').submit()</script>`,
    );
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
}

/** a request to the API with a key, as a client program would send it */
export async function api(base: string, key: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}
