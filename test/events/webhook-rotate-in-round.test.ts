/**
 * `leadline webhook rotate-secret`: "the old one stops at once", also while
 * `leadline serve` is in the middle of a round to the endpoint. A round once
 * signed with the secret it read when it leased the endpoint, for up to 20 s
 * after a rotation; now it reads the secret before each message. Deleting the
 * endpoint mid-round likewise stops what is sent to it. The receiver acts
 * while it holds a request, so the race is not left to timing.
 * docs/events.md "Webhooks".
 */
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCampaign } from '../../src/campaigns/service.js';
import { OutboundPolicy, parseOutboundAllow } from '../../src/net/outbound.js';
import { WebhookDeliverer } from '../../src/webhooks/deliverer.js';
import { createWebhook, deleteWebhook, rotateSecret } from '../../src/webhooks/service.js';
import { phone } from '../api/support.js';
import { availableStores } from '../helpers/db.js';
import { type Fixture, makeFixture } from '../helpers/fixture.js';
import { startReceiver } from './receiver.js';

const local = new OutboundPolicy(parseOutboundAllow('127.0.0.0/8'));
const silent = pino({ level: 'silent' });

describe.each(await availableStores())('webhook secret rotation during a round on %s', (kind) => {
  let f: Fixture;
  beforeAll(async () => {
    f = await makeFixture(kind);
  });
  afterAll(() => f.close());

  /** an endpoint for a new campaign with three lead.created events readable, and a deliverer */
  async function endpointWithThree(name: string) {
    const rx = await startReceiver();
    const { campaignId } = await createCampaign(f.db, { companyId: f.ids.companyA, name });
    const created = await createWebhook(f.db, { companyId: f.ids.companyA, url: rx.url, campaignId });
    rx.secret = created.secret;
    for (let i = 0; i < 3; i++)
      expect((await f.request('POST', '/api/v1/leads', { body: { campaignId, phoneNumber: phone() } })).status).toBe(201);
    const d = new WebhookDeliverer({
      store: f.db,
      owner: 'a',
      outbound: local,
      logger: silent,
      retentionMs: 30 * 86_400_000,
      recheckMs: 0,
    });
    // PostgreSQL: an event is readable once every older transaction has ended; all three go in one round
    const deadline = Date.now() + 15_000;
    const readable = async () => (await f.request('GET', '/api/v1/events', { query: { campaignId } })).body.data.count;
    while ((await readable()) < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    return { rx, created, d };
  }

  it('the messages after the rotation in the same round are signed with the new secret', async () => {
    const { rx, created, d } = await endpointWithThree('rotate in round');
    try {
      // the first request is held until the rotation has returned; from then on the receiver knows only the new secret
      rx.meanwhile = async () => {
        rx.meanwhile = null;
        rx.secret = (await rotateSecret(f.db, created.webhookId)).secret;
      };
      const deadline = Date.now() + 15_000;
      while (rx.received.length < 3 && Date.now() < deadline) await d.round();
      expect(rx.received).toHaveLength(3);
      // the first verified with the old secret before the rotation, the others with the new one
      expect(rx.received.map((r) => r.verified)).toEqual([true, true, true]);
    } finally {
      await rx.close();
    }
  });

  it('an endpoint deleted during a round is sent nothing more', async () => {
    const { rx, created, d } = await endpointWithThree('delete in round');
    try {
      rx.meanwhile = async () => {
        rx.meanwhile = null;
        await deleteWebhook(f.db, created.webhookId);
      };
      await d.round();
      await d.round();
      expect(rx.received).toHaveLength(1);
    } finally {
      await rx.close();
    }
  });
});
