/**
 * What an operator does to an endpoint while `leadline serve` is in the middle
 * of a round to it (a busy endpoint is leased most of the time) takes effect
 * in that round. The receiver acts while it holds a request, so the race is
 * not left to timing; the deliverers here read the endpoint before every
 * message (recheckMs: 0; by default every 50 ms).
 * - Replay: the round's settle once wrote its own position over the
 *   replay's, because it checked only the lease. Now the replay bumps the
 *   endpoint's generation (migration 0022) and a round writes only in the
 *   generation it leased. docs/events.md "Replay".
 * - `leadline webhook rotate-secret`: "the old one stops at once". A round
 *   once signed with the secret it read when it leased the endpoint, for up
 *   to 20 s after a rotation. Deleting the endpoint mid-round likewise stops
 *   what is sent to it. docs/events.md "Webhooks".
 */
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCampaign } from '../../src/campaigns/service.js';
import { OutboundPolicy, parseOutboundAllow } from '../../src/net/outbound.js';
import { createWebhook, deleteWebhook, listDeliveries, replayWebhook, rotateSecret } from '../../src/webhooks/service.js';
import { WebhookDeliverer } from '../../src/webhooks/deliverer.js';
import { phone } from '../api/support.js';
import { availableStores } from '../helpers/db.js';
import { type Fixture, makeFixture } from '../helpers/fixture.js';
import { startReceiver } from './receiver.js';

const local = new OutboundPolicy(parseOutboundAllow('127.0.0.0/8'));
const silent = pino({ level: 'silent' });

describe.each(await availableStores())('an endpoint changed during a delivery round on %s', (kind) => {
  let f: Fixture;
  beforeAll(async () => {
    f = await makeFixture(kind);
  });
  afterAll(() => f.close());

  it('a replay asked while a message is in flight sends everything from the replay again', async () => {
    const rx = await startReceiver();
    try {
      const { campaignId } = await createCampaign(f.db, { companyId: f.ids.companyA, name: 'replay in round' });
      const created = await createWebhook(f.db, { companyId: f.ids.companyA, url: rx.url, campaignId });
      rx.secret = created.secret;
      const since = f.clock.now; // the API's clock (fixed in the fixture) stamps the events
      const d = new WebhookDeliverer({
        store: f.db,
        owner: 'a',
        outbound: local,
        logger: silent,
        retentionMs: 30 * 86_400_000,
        recheckMs: 0,
      });
      const lead = async () =>
        expect((await f.request('POST', '/api/v1/leads', { body: { campaignId, phoneNumber: phone() } })).status).toBe(201);
      /** rounds until `n` requests have arrived (PostgreSQL: an event is readable once older transactions end) */
      const deliverUntil = async (n: number) => {
        const deadline = Date.now() + 15_000;
        while (rx.received.length < n && Date.now() < deadline) {
          if ((await d.round()) === 0) await new Promise((r) => setTimeout(r, 20));
        }
      };

      for (let i = 0; i < 3; i++) await lead();
      await deliverUntil(3);
      expect(rx.received).toHaveLength(3);

      // the fourth request is held until the operator's replay has returned
      await lead();
      let replayed = false;
      rx.meanwhile = async () => {
        rx.meanwhile = null;
        await replayWebhook(f.db, created.webhookId, since);
        replayed = true;
      };
      await deliverUntil(4);
      expect(replayed).toBe(true);

      // the next rounds start from the replay: the four events again, in order, with their ids
      await deliverUntil(8);
      const ids = rx.received.map((r) => r.id);
      expect(ids.slice(4)).toEqual(ids.slice(0, 4));
      // the try the replay overtook is in the log all the same
      expect(await listDeliveries(f.db, created.webhookId)).toHaveLength(8);
    } finally {
      await rx.close();
    }
  });

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
