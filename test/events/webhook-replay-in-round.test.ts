/**
 * A replay asked while `leadline serve` is in the middle of a round to the
 * endpoint (a busy endpoint is leased most of the time) is kept: the round's
 * settle once wrote its own position over the replay's, because it checked
 * only the lease. Now the replay bumps the endpoint's generation (migration
 * 0022) and a round writes only in the generation it leased. The receiver
 * replays while it holds the request, so the race is not left to timing.
 * docs/events.md "Replay".
 */
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCampaign } from '../../src/campaigns/service.js';
import { OutboundPolicy, parseOutboundAllow } from '../../src/net/outbound.js';
import { WebhookDeliverer } from '../../src/webhooks/deliverer.js';
import { createWebhook, listDeliveries, replayWebhook } from '../../src/webhooks/service.js';
import { phone } from '../api/support.js';
import { availableStores } from '../helpers/db.js';
import { type Fixture, makeFixture } from '../helpers/fixture.js';
import { startReceiver } from './receiver.js';

const local = new OutboundPolicy(parseOutboundAllow('127.0.0.0/8'));
const silent = pino({ level: 'silent' });

describe.each(await availableStores())('webhook replay during a round on %s', (kind) => {
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
});
