/**
 * A real `leadline serve` SIGKILLed in the middle of webhook deliveries loses
 * no event: its lease runs out and another instance sends everything from
 * the last recorded position (some twice, with the same webhook-id).
 * docs/events.md "Delivery".
 */
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCampaign, createCompany } from '../../src/campaigns/service.js';
import { OutboundPolicy, parseOutboundAllow } from '../../src/net/outbound.js';
import type { Store } from '../../src/store/index.js';
import { WebhookDeliverer } from '../../src/webhooks/deliverer.js';
import { createWebhook } from '../../src/webhooks/service.js';
import { availableStores, createTestStore, type TestStore } from '../helpers/db.js';
import { startServerProcess } from '../helpers/server-process.js';
import { type Receiver, startReceiver } from './receiver.js';

const LEADS = 40;

describe.each(await availableStores())('leadline serve SIGKILLed mid-delivery on %s', (kind) => {
  let ts: TestStore;
  let db: Store;
  let rx: Receiver;
  beforeAll(async () => {
    ts = await createTestStore(kind);
    db = await ts.open();
    rx = await startReceiver();
  });
  afterAll(async () => {
    await rx.close();
    await db.close();
    await ts.drop();
  });

  it('loses no event', async () => {
    const { companyId } = await createCompany(db, 'Killed');
    const { campaignId } = await createCampaign(db, { companyId, name: 'K' });
    const { secret } = await createWebhook(db, { companyId, url: rx.url });
    rx.secret = secret;
    rx.delayMs = 30; // slow enough for the kill to land mid-delivery
    const rows = Array.from({ length: LEADS }, (_, i) => ({
      id: `ld_kill_${i}`,
      phoneNumber: `+1415666${String(i).padStart(4, '0')}`,
      externalId: null,
      metadata: '{}',
      scheduledFor: null,
      priority: 0,
    }));
    await db.leads.insertMany(campaignId, rows, Date.now());

    const server = await startServerProcess({ DATABASE_URL: ts.url, OUTBOUND_ALLOW: '127.0.0.0/8' });
    await rx.waitFor(5);
    await server.stop('SIGKILL');
    expect(rx.received.length).toBeLessThan(LEADS);

    // another instance, once the dead one's 60 s lease has run out
    const after = new WebhookDeliverer({
      store: db,
      owner: 'after-the-kill',
      outbound: new OutboundPolicy(parseOutboundAllow('127.0.0.0/8')),
      logger: pino({ level: 'silent' }),
      retentionMs: 86_400_000,
      now: () => Date.now() + 61_000,
    });
    const deadline = Date.now() + 20_000;
    const leads = () => new Set(rx.received.map((r) => r.payload.data.leadId));
    while (leads().size < LEADS && Date.now() < deadline) {
      if ((await after.round()) === 0) await new Promise((r) => setTimeout(r, 20));
    }
    expect([...leads()].sort()).toEqual(rows.map((r) => r.id).sort());
    expect(rx.received.every((r) => r.verified)).toBe(true);
    // a re-sent event keeps its webhook-id
    const idOf = new Map<string, string>();
    for (const r of rx.received) {
      const leadId = String(r.payload.data.leadId);
      expect(idOf.get(leadId) ?? r.id).toBe(r.id);
      idOf.set(leadId, r.id);
    }
  });
});
