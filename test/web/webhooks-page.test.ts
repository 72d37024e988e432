/**
 * Company settings → Webhooks over app.inject on each store, with SECRET_KEY
 * set: adding an endpoint (secret shown once, sealed as the CLI seals it),
 * refused forms, rotating, enabling, deleting after a confirmation, the
 * delivery log of tries made by the real deliverer to a local receiver, and
 * nothing of another company's.
 */
import { sql } from 'kysely';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSecretKey, secretsFor } from '../../src/crypto/secrets.js';
import { OutboundPolicy, parseOutboundAllow } from '../../src/net/outbound.js';
import { WebhookDeliverer } from '../../src/webhooks/deliverer.js';
import { webhookSecret } from '../../src/webhooks/service.js';
import { phoneLeads } from '../api/support.js';
import { startReceiver } from '../events/receiver.js';
import { availableStores } from '../helpers/db.js';
import { type Fixture, makeFixture } from '../helpers/fixture.js';
import { type Browser, signedInUser } from './support.js';

const SECRET_KEY = Buffer.alloc(32, 5).toString('base64');
const sealing = secretsFor(parseSecretKey(SECRET_KEY));
const PAGE = '/dashboard/settings/webhooks';
const shownSecret = (body: string) => /<code id="secret-value">(whsec_[A-Za-z0-9+/=]+)<\/code>/.exec(body)?.[1];

describe.each(await availableStores())('dashboard webhooks on %s', (kind) => {
  let f: Fixture;
  let a: Browser;
  let b: Browser;
  beforeAll(async () => {
    f = await makeFixture(kind, { env: { SECRET_KEY } });
    a = await signedInUser(f.app, f.db, f.ids.companyA, 'hooks-a@example.com');
    b = await signedInUser(f.app, f.db, f.ids.companyB, 'hooks-b@example.com', '10.0.0.2');
  });
  afterAll(() => f.close());
  const hooks = (companyId = f.ids.companyA) => f.db.webhooks.list(companyId);
  /** creates an endpoint through the page; its id and the secret shown */
  const create = async (form: Record<string, string>) => {
    await a.get(PAGE);
    const page = await a.post(PAGE, form);
    expect(page.status, page.body).toBe(200);
    const webhookId = /Endpoint id: <span class="mono">(wh_[A-Za-z0-9_-]+)<\/span>/.exec(page.body)![1]!;
    return { page, webhookId, secret: shownSecret(page.body)! };
  };
  /** on PostgreSQL, until the events written so far are readable (as in test/events/webhooks.test.ts) */
  const settled = async () => {
    if (kind !== 'postgres') return;
    const mark = Number((await sql<{ x: string }>`select pg_current_xact_id()::text as x`.execute(f.db.kysely)).rows[0]!.x);
    for (const deadline = Date.now() + 15_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 20))) {
      const { rows } = await sql<{ m: string }>`select pg_snapshot_xmin(pg_current_snapshot())::text as m`.execute(f.db.kysely);
      if (Number(rows[0]!.m) > mark) return;
    }
    throw new Error('a transaction older than the events is still running');
  };

  it('adds an endpoint and shows its secret once, sealed with SECRET_KEY as the CLI seals it', async () => {
    const tabs = await a.get('/dashboard/settings/users');
    expect(tabs.body).toContain(`<a href="${PAGE}">Webhooks</a>`);
    expect((await a.get(PAGE)).body).toContain('No endpoints yet.');
    const { page, webhookId, secret } = await create({
      url: ' https://crm.example.com/hooks?x=1 ',
      'event.attempt.finished': 'on',
      'event.lead.status_changed': 'on',
      campaignId: f.ids.campaignA,
    });
    expect(page.headers['cache-control']).toBe('no-store');
    expect(secret).toMatch(/^whsec_/);
    expect(page.body).toContain('shown this once');
    const [row] = await hooks();
    expect(row).toMatchObject({ id: webhookId, url: 'https://crm.example.com/hooks?x=1', campaign_id: f.ids.campaignA });
    expect(row!.event_types).toBe('lead.status_changed,attempt.finished');
    expect(row!.secret).toMatch(/^enc:v1:/);
    expect(webhookSecret(row!, sealing)).toBe(secret);

    const list = await a.get(PAGE);
    expect(list.body).not.toContain(secret);
    expect(list.body).toContain('https://crm.example.com/hooks?x=1');
    expect(list.body).toContain('lead.status_changed, attempt.finished');
    expect(list.body).toContain('Campaign: A1');
    expect(list.body).toContain('<span class="badge enabled">enabled</span>');
    // every event of every campaign when nothing is ticked or chosen
    await create({ url: 'http://127.0.0.1:9/all', campaignId: '' });
    const all = (await hooks()).find((h) => h.url === 'http://127.0.0.1:9/all')!;
    expect([all.event_types, all.campaign_id]).toEqual(['', null]);
    expect((await a.get(PAGE)).body).toMatch(/All events<\/td>\s*<td data-label="Campaigns">All campaigns/);
  });

  it("refuses a bad URL on its field, and another company's campaign as not found, creating nothing", async () => {
    const before = await hooks();
    await a.get(PAGE);
    const relative = await a.post(PAGE, { url: '/hooks', 'event.lead.created': 'on' });
    expect(relative.status).toBe(400);
    expect(relative.body).toContain('&quot;/hooks&quot; is not an absolute URL');
    expect(relative.body).toMatch(/id="f-url"[^>]*aria-invalid="true" aria-describedby="e-url" autofocus/);
    expect(relative.body).toMatch(/name="event.lead.created" value="on" checked/); // what was ticked is kept
    expect(shownSecret(relative.body)).toBeUndefined();
    const ftp = await a.post(PAGE, { url: 'ftp://example.com/x' });
    expect(ftp.status).toBe(400);
    expect(ftp.body).toContain('must be http:// or https://');
    const creds = await a.post(PAGE, { url: 'https://user:pw@example.com/x' });
    expect(creds.body).toContain('must not carry a user name or password');
    const forged = await a.post(PAGE, { url: 'https://example.com/x', campaignId: f.ids.campaignB });
    expect(forged.status).toBe(404);
    expect(await hooks()).toEqual(before);
  });

  it('rotates the secret after a confirmation and shows the new one once', async () => {
    const { webhookId, secret } = await create({ url: 'https://rotate.example.com/' });
    const confirm = await a.get(`${PAGE}/${webhookId}/rotate`);
    expect(confirm.body).toContain('The current secret stops working at once');
    expect(webhookSecret((await f.db.webhooks.byId(webhookId))!, sealing)).toBe(secret); // asking changes nothing
    const rotated = await a.post(`${PAGE}/${webhookId}/rotate`);
    expect(rotated.status).toBe(200);
    expect(rotated.headers['cache-control']).toBe('no-store');
    const fresh = shownSecret(rotated.body)!;
    expect(fresh).toMatch(/^whsec_/);
    expect(fresh).not.toBe(secret);
    const row = (await f.db.webhooks.byId(webhookId))!;
    expect(row.secret).toMatch(/^enc:v1:/);
    expect(webhookSecret(row, sealing)).toBe(fresh);
    expect((await a.get(PAGE)).body).not.toContain(fresh);
  });

  it('shows a disabled endpoint with its reason and enables it', async () => {
    const { webhookId } = await create({ url: 'https://disabled.example.com/' });
    const reason = 'failing since 2026-11-24T10:00:00.000Z: answered HTTP 500';
    await f.db.webhooks.setEnabled(webhookId, { reason, at: Date.now() }, Date.now());
    const list = await a.get(PAGE);
    expect(list.body).toContain('<span class="badge disabled">disabled</span>');
    expect(list.body).toContain(reason);
    expect(list.body).toContain(`action="${PAGE}/${webhookId}/enable"`);
    const enabled = await a.post(`${PAGE}/${webhookId}/enable`);
    expect(enabled.location).toBe(`${PAGE}?done=enabled`);
    expect((await a.get(enabled.location!)).body).toContain('The endpoint was enabled');
    expect(await f.db.webhooks.byId(webhookId)).toMatchObject({ disabled_at: null, disabled_reason: null });
  });

  it('deletes an endpoint after a confirmation', async () => {
    const { webhookId } = await create({ url: 'https://delete.example.com/' });
    const confirm = await a.get(`${PAGE}/${webhookId}/delete`);
    expect(confirm.body).toContain('Delete the endpoint <strong class="mono">https://delete.example.com/</strong>');
    expect(await f.db.webhooks.byId(webhookId)).toBeDefined();
    const deleted = await a.post(`${PAGE}/${webhookId}/delete`);
    expect(deleted.location).toBe(`${PAGE}?done=deleted`);
    expect(await f.db.webhooks.byId(webhookId)).toBeUndefined();
    expect((await a.get(`${PAGE}/${webhookId}/deliveries`)).status).toBe(404);
  });

  it('shows the tries the deliverer logged, newest first, failed only on demand, 50 a page', async () => {
    const rx = await startReceiver();
    try {
      const { webhookId, secret } = await create({ url: rx.url, 'event.lead.created': 'on', campaignId: f.ids.campaignA2 });
      rx.secret = secret;
      rx.status = 503;
      const bulk = await f.request('POST', '/api/v1/leads/bulk', { body: { campaignId: f.ids.campaignA2, leads: phoneLeads(55) } });
      expect(bulk.status, JSON.stringify(bulk.body)).toBe(200);
      await settled();
      const now = { offset: 0 };
      const deliverer = new WebhookDeliverer({
        store: f.db,
        owner: 'dashboard-test',
        outbound: new OutboundPolicy(parseOutboundAllow('127.0.0.0/8')),
        logger: pino({ level: 'silent' }),
        retentionMs: 24 * 3600_000,
        secrets: sealing,
        now: () => Date.now() + now.offset,
      });
      await deliverer.round();
      expect(rx.received).toHaveLength(1);
      rx.status = 200;
      now.offset += 6000;
      for (let i = 0; i < 20 && rx.received.length < 56; i++) await deliverer.round();
      expect(rx.received).toHaveLength(56);
      expect(rx.received.every((r) => r.verified)).toBe(true); // signed with the secret shown once
      const tries = await f.db.webhooks.deliveries(webhookId, false, 100);
      expect(tries).toHaveLength(56);

      const first = await a.get(`${PAGE}/${webhookId}/deliveries`);
      expect(first.status).toBe(200);
      const rows = (body: string) => [
        ...body.matchAll(/<td data-label="Event"><span class="mono">([^<]+)<\/span><div class="muted mono">([^<]+)</g),
      ];
      expect(rows(first.body)).toHaveLength(50);
      expect(rows(first.body).map((m) => m[2])).toEqual(tries.slice(0, 50).map((t) => t.message_id));
      expect(rows(first.body).every((m) => m[1] === 'lead.created')).toBe(true);
      expect(first.body).toContain('<td data-label="Response" class="num">200</td>');
      expect(first.body).toMatch(/<td data-label="Latency" class="num">\d+ ms<\/td>/);
      expect(first.body).toMatch(/<td data-label="Time">\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC<\/td>/);
      const older = /href="([^"]+)" rel="next"|rel="next" href="([^"]+)">Older/.exec(first.body)!;
      const second = await a.get((older[1] ?? older[2])!.replaceAll('&amp;', '&'));
      expect(rows(second.body).map((m) => m[2])).toEqual(tries.slice(50).map((t) => t.message_id));
      expect(second.body).toContain('<span class="badge failed">failed</span>');
      expect(second.body).toContain('<td data-label="Response" class="num">503</td>');
      expect(second.body).toContain('answered HTTP 503');
      expect(second.body).toContain('>Newest</a>');

      const failed = await a.get(`${PAGE}/${webhookId}/deliveries?failed=1`);
      expect(rows(failed.body).map((m) => m[2])).toEqual([tries.at(-1)!.message_id]);
      expect(failed.body).not.toContain('<span class="badge ok">ok</span>');
      expect(failed.body).toMatch(/name="failed" value="1" checked/);
      expect((await a.get(`${PAGE}/${webhookId}/deliveries?before=x1`)).status).toBe(400);
      // the cursor shows no position in the tries of every company, and binds to its endpoint
      const cursor = new URL((older[1] ?? older[2])!.replaceAll('&amp;', '&'), 'http://x').searchParams.get('before')!;
      expect(cursor).toMatch(/^[A-Za-z0-9_-]{22}$/);
      expect((await a.get(`${PAGE}/${webhookId}/deliveries?before=3`)).status).toBe(400);
      const other = await create({ url: 'https://other.example.com/' });
      expect((await a.get(`${PAGE}/${other.webhookId}/deliveries?before=${cursor}`)).status).toBe(400);
    } finally {
      await rx.close();
    }
  });

  it("gives company B 404 for every page and action of company A's endpoint, changing nothing", async () => {
    const { webhookId } = await create({ url: 'https://tenant.example.com/' });
    await f.db.webhooks.setEnabled(webhookId, { reason: 'test', at: Date.now() }, Date.now());
    const before = await f.db.webhooks.byId(webhookId);
    const list = await b.get(PAGE);
    expect(list.body).toContain('No endpoints yet.');
    expect(list.body).not.toContain('tenant.example.com');
    for (const path of ['deliveries', 'deliveries?failed=1', 'rotate', 'delete']) {
      expect((await b.get(`${PAGE}/${webhookId}/${path}`)).status, path).toBe(404);
    }
    for (const action of ['rotate', 'delete', 'enable']) {
      const res = await b.post(`${PAGE}/${webhookId}/${action}`);
      expect(res.status, action).toBe(404);
      expect(res.body).not.toContain('whsec_');
    }
    expect(await f.db.webhooks.byId(webhookId)).toEqual(before);
  });

  it('refuses posts without the form token and changes nothing', async () => {
    const { webhookId } = await create({ url: 'https://csrf.example.com/' });
    const before = await hooks();
    const noToken = await a.request('POST', PAGE, { form: { url: 'https://forged.example.com/' } });
    expect(noToken.status).toBe(403);
    for (const action of ['rotate', 'delete', 'enable']) {
      expect((await a.request('POST', `${PAGE}/${webhookId}/${action}`, { form: {} })).status, action).toBe(403);
    }
    expect((await a.post(`${PAGE}/${webhookId}/delete`, {}, { 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    expect(await hooks()).toEqual(before);
  });
});
