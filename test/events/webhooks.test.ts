/**
 * Webhook delivery to a real local receiver that verifies every request with
 * the `standardwebhooks` package: every event type, retries with the same
 * webhook-id, a receiver down for a while, two instances at once, filters,
 * the outbound policy, disabling after three days, replay and rotation.
 * docs/events.md "Webhooks".
 */
import { sql } from 'kysely';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createCampaign } from '../../src/campaigns/service.js';
import { parseSecretKey, secretsFor } from '../../src/crypto/secrets.js';
import { OutboundPolicy, parseOutboundAllow } from '../../src/net/outbound.js';
import type { Store } from '../../src/store/index.js';
import { WebhookDeliverer } from '../../src/webhooks/deliverer.js';
import {
  createWebhook,
  deleteWebhook,
  enableWebhook,
  listDeliveries,
  listWebhooks,
  replayWebhook,
  rotateSecret,
  webhookSecret,
} from '../../src/webhooks/service.js';
import { phone } from '../api/support.js';
import { availableStores } from '../helpers/db.js';
import { type Fixture, makeFixture } from '../helpers/fixture.js';
import { type Receiver, startReceiver } from './receiver.js';

const local = new OutboundPolicy(parseOutboundAllow('127.0.0.0/8'));
const silent = pino({ level: 'silent' });
const H = 3600_000;

describe.each(await availableStores())('webhooks on %s', (kind) => {
  let f: Fixture;
  let rx: Receiver;
  const clock = { offset: 0 };
  const deliverer = (store: Store = f.db, owner = 'test-a') =>
    new WebhookDeliverer({ store, owner, outbound: local, logger: silent, retentionMs: 30 * 24 * H, now: () => Date.now() + clock.offset });
  beforeAll(async () => {
    f = await makeFixture(kind);
  });
  afterAll(() => f.close());
  afterEach(async () => {
    await rx?.close();
    for (const w of await listWebhooks(f.db, f.ids.companyA)) await deleteWebhook(f.db, w.webhookId);
    clock.offset = 0;
  });

  async function hook(o: { events?: string[]; campaignId?: string } = {}) {
    rx = await startReceiver();
    const created = await createWebhook(f.db, { companyId: f.ids.companyA, url: rx.url, ...o });
    rx.secret = created.secret;
    return created;
  }
  const lead = async (campaignId = f.ids.campaignA, extra: object = {}) => {
    const res = await f.request('POST', '/api/v1/leads', { body: { campaignId, phoneNumber: phone(), ...extra } });
    expect(res.status).toBe(201);
    return res.body.data.leadId as string;
  };
  /**
   * Rounds until the receiver holds `n` requests. On PostgreSQL an event is
   * read once every transaction older than it has ended, on the whole server
   * (other tests' too), so it may take a few rounds.
   */
  const until = async (n: number, d = deliverer()) => {
    const deadline = Date.now() + 15_000;
    while (rx.received.length < n) {
      if (Date.now() > deadline) throw new Error(`received ${rx.received.length} of ${n}`);
      if ((await d.round()) === 0) await new Promise((r) => setTimeout(r, 20));
    }
    await d.round(); // and nothing more
    expect(rx.received).toHaveLength(n);
  };

  /**
   * On PostgreSQL, waits until every transaction begun so far has ended, so
   * that the events written so far are readable: for the tests that count
   * the deliverer's rounds one by one.
   */
  const settled = async () => {
    if (kind !== 'postgres') return;
    const mark = Number((await sql<{ x: string }>`select pg_current_xact_id()::text as x`.execute(f.db.kysely)).rows[0]!.x);
    const deadline = Date.now() + 15_000;
    for (;;) {
      const { rows } = await sql<{ m: string }>`select pg_snapshot_xmin(pg_current_snapshot())::text as m`.execute(f.db.kysely);
      if (Number(rows[0]!.m) > mark) return;
      if (Date.now() > deadline) throw new Error('a transaction older than the events is still running');
      await new Promise((r) => setTimeout(r, 20));
    }
  };

  it('every event type arrives signed, verifiable, in the Standard Webhooks payload', async () => {
    const { webhookId, secret } = await hook();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    const number = phone();
    const created = await f.request('POST', '/api/v1/leads', {
      body: { campaignId: f.ids.campaignA, phoneNumber: number, externalId: 'crm-wh-1' },
    });
    const leadId = created.body.data.leadId;
    const [claimed] = (
      await f.db.queue.claim({
        campaignId: f.ids.campaignA,
        maxAttempts: 3,
        workerId: 'w',
        limit: 50,
        now: Date.now(),
        leaseMs: 60_000,
        openZones: null,
      })
    ).filter((l) => l.id === leadId);
    const attemptId = `at_wh_${Date.now()}`;
    await f.db.queue.open(
      [{ attemptId, lead: claimed!, phoneNumber: number, startedAt: Date.now(), deadlineAt: Date.now() + 60_000 }],
      Date.now(),
    );
    await f.db.queue.accept(attemptId, { providerCallId: null, deadlineAt: Date.now() + 60_000 });
    const report = await f.request('POST', `/api/v1/attempts/${attemptId}/outcome`, {
      body: { success: false, outcome: 'no-answer', reason: 'rang out', durationSeconds: 31 },
    });
    expect(report.status).toBe(200);
    await f.request('DELETE', '/api/v1/leads', { query: { campaignId: f.ids.campaignA, externalId: 'crm-wh-1' } });
    await until(5);

    expect(rx.received.every((r) => r.verified)).toBe(true);
    const mine = rx.received.filter((r) => r.payload.data.leadId === leadId);
    expect(mine.map((r) => r.payload.type)).toEqual([
      'lead.created',
      'lead.status_changed',
      'attempt.started',
      'attempt.finished', // no answer: the lead stays attempting, so no lead.status_changed
      'lead.deleted',
    ]);
    for (const r of mine) {
      expect(r.headers['webhook-id']).toMatch(/^evt_[A-Za-z0-9_-]{22}$/); // opaque: src/events/ids.ts
      expect(r.headers['webhook-signature']).toMatch(/^v1,/);
      expect(r.headers['x-leadline-signature']).toBeUndefined();
      expect(Object.keys(r.payload)).toEqual(['type', 'timestamp', 'data']);
      expect(r.payload.data).toMatchObject({ leadId, campaignId: f.ids.campaignA, externalId: 'crm-wh-1' });
    }
    expect(mine[1]!.payload.data).toMatchObject({ from: 'raw', to: 'attempting' });
    // the lead was deleted before delivery: its number is scrubbed from every event
    expect(mine[3]!.payload.data).toEqual({
      leadId,
      campaignId: f.ids.campaignA,
      externalId: 'crm-wh-1',
      attemptId,
      attempt: 1,
      outcome: 'no-answer',
      success: false,
      reason: 'rang out',
      numberDialled: null,
      durationSeconds: 31,
    });
    expect(mine[0]!.payload.data.phoneNumber).toBeNull();
    const tries = await listDeliveries(f.db, webhookId);
    expect(tries.length).toBe(rx.received.length);
    expect(tries.every((t) => t.ok && t.statusCode === 200 && t.try === 1)).toBe(true);
  });

  it('a live lead: numberDialled and phoneNumber are its number', async () => {
    await hook({ events: ['lead.created'] });
    const id = await lead();
    await until(1);
    expect(rx.received.map((r) => [r.payload.type, r.payload.data.leadId])).toEqual([['lead.created', id]]);
    expect(rx.received[0]!.payload.data.phoneNumber).toMatch(/^\+1415/);
  });

  it('with SECRET_KEY the secret is stored sealed, bound to its endpoint, and deliveries are signed with it in plain', async () => {
    const sealing = secretsFor(parseSecretKey(Buffer.alloc(32, 7).toString('base64')));
    rx = await startReceiver();
    const created = await createWebhook(f.db, { companyId: f.ids.companyA, url: rx.url }, Date.now(), sealing);
    rx.secret = created.secret;
    const row = (await f.db.webhooks.byId(created.webhookId))!;
    expect(row.secret).toMatch(/^enc:v1:/);
    expect(webhookSecret(row, sealing)).toBe(created.secret);
    expect(() => webhookSecret({ ...row, id: 'wh_other' }, sealing)).toThrow(/integrity/);
    await lead();
    await settled();
    const d = new WebhookDeliverer({ store: f.db, owner: 'sealed', outbound: local, logger: silent, retentionMs: H, secrets: sealing });
    for (let i = 0; i < 50 && rx.received.length === 0; i++) await d.round();
    expect(rx.received.length).toBeGreaterThan(0);
    expect(rx.received.every((r) => r.verified)).toBe(true);
    const rotated = await rotateSecret(f.db, created.webhookId, undefined, sealing);
    expect((await f.db.webhooks.byId(created.webhookId))!.secret).toMatch(/^enc:v1:/);
    expect(webhookSecret((await f.db.webhooks.byId(created.webhookId))!, sealing)).toBe(rotated.secret);
  });

  it('a receiver down for a while gets everything, in order, the failed one again with its webhook-id', async () => {
    const { webhookId } = await hook();
    rx.status = 503;
    const ids = [await lead(), await lead(), await lead()];
    await settled();
    const d = deliverer();
    expect(await d.round()).toBe(0);
    expect(rx.received).toHaveLength(1);
    const first = rx.received[0]!.id;
    expect(await d.round()).toBe(0); // not due yet: 5 s ±10%
    expect(rx.received).toHaveLength(1);
    clock.offset += 6000;
    expect(await d.round()).toBe(0);
    expect(rx.received.map((r) => r.id)).toEqual([first, first]);
    const failed = await listDeliveries(f.db, webhookId, { failedOnly: true });
    expect(failed.map((t) => [t.try, t.statusCode, t.ok])).toEqual([
      [2, 503, false],
      [1, 503, false],
    ]);
    expect((await listWebhooks(f.db, f.ids.companyA))[0]!.failingSince).not.toBeNull();
    rx.status = 200;
    clock.offset += 5 * 60_000 * 1.2;
    await until(5, d);
    const ok = rx.received.slice(2);
    expect(ok[0]!.id).toBe(first);
    expect(ok.map((r) => r.payload.data.leadId)).toEqual(ids);
    expect((await listWebhooks(f.db, f.ids.companyA))[0]!.failingSince).toBeNull();
  });

  it('a refused connection and the outbound policy are failures, recorded', async () => {
    const { webhookId } = await hook();
    await lead();
    await settled();
    const strict = new WebhookDeliverer({ store: f.db, owner: 's', outbound: new OutboundPolicy(), logger: silent, retentionMs: H });
    await strict.round();
    expect(rx.received).toHaveLength(0);
    const [refused] = await listDeliveries(f.db, webhookId);
    expect(refused!.error).toMatch(/refused by the outbound policy/);
    await rx.close();
    clock.offset += 10_000;
    await deliverer().round();
    const [down] = await listDeliveries(f.db, webhookId);
    expect(down!.error).toMatch(/ECONNREFUSED/);
    expect(down!.statusCode).toBeNull();
  });

  it('failing for three days disables the endpoint, visibly; enabled again it delivers', async () => {
    const { webhookId } = await hook();
    rx.status = 500;
    await lead();
    await lead();
    await settled();
    const d = deliverer();
    for (let i = 0; i < 40 && (await listWebhooks(f.db, f.ids.companyA))[0]!.status === 'enabled'; i++) {
      await d.round();
      clock.offset += 11 * H;
    }
    const [w] = await listWebhooks(f.db, f.ids.companyA);
    expect(w!.status).toBe('disabled');
    expect(w!.disabledReason).toMatch(/^failing since .*: answered HTTP 500$/);
    // 8 tries of the first message over about 27.6 h, then it was given up and the next one tried
    const tries = await listDeliveries(f.db, webhookId, { limit: 1000 });
    expect(tries.some((t) => t.error?.endsWith('given up after 8 tries'))).toBe(true);
    const before = rx.received.length;
    await d.round();
    expect(rx.received.length).toBe(before);
    rx.status = 200;
    await enableWebhook(f.db, webhookId);
    await until(before + 1, d);
    expect((await listWebhooks(f.db, f.ids.companyA))[0]!.status).toBe('enabled');
  });

  it('filters: event types and one campaign', async () => {
    await hook({ events: ['lead.deleted'], campaignId: f.ids.campaignA2 });
    await lead(f.ids.campaignA, { externalId: 'crm-f-1' });
    await lead(f.ids.campaignA2, { externalId: 'crm-f-2' });
    for (const [c, e] of [
      [f.ids.campaignA, 'crm-f-1'],
      [f.ids.campaignA2, 'crm-f-2'],
    ] as const)
      await f.request('DELETE', '/api/v1/leads', { query: { campaignId: c, externalId: e } });
    await until(1);
    expect(rx.received.map((r) => [r.payload.type, r.payload.data.externalId])).toEqual([['lead.deleted', 'crm-f-2']]);
  });

  it('replay re-sends from an instant with the same webhook-ids; a rotated secret signs what follows', async () => {
    // events are stamped by the app's clock, which this fixture holds still: a campaign of its own
    const { campaignId } = await createCampaign(f.db, { companyId: f.ids.companyA, name: 'replayed' });
    const { webhookId } = await hook({ campaignId });
    const since = f.clock.now;
    await lead(campaignId);
    await lead(campaignId);
    await until(2);
    const firstIds = rx.received.map((r) => r.id);
    expect(firstIds).toHaveLength(2);
    await replayWebhook(f.db, webhookId, since);
    await until(4);
    expect(rx.received.map((r) => r.id)).toEqual([...firstIds, ...firstIds]);
    const { secret } = await rotateSecret(f.db, webhookId);
    await lead(campaignId);
    await until(5);
    expect(rx.received.at(-1)!.verified).toBe(false); // verified with the old secret
    rx.secret = secret;
    await replayWebhook(f.db, webhookId, since);
    await until(8);
    expect(rx.received.at(-1)!.verified).toBe(true);
  });

  it('two instances at once: every event delivered once between them', async () => {
    await hook();
    const other = await f.store.open();
    try {
      const a = deliverer(f.db, 'inst-a');
      const b = deliverer(other, 'inst-b');
      let writing = true;
      const writer = (async () => {
        for (let i = 0; i < 30; i++) await lead(i % 2 ? f.ids.campaignA : f.ids.campaignA2);
        writing = false;
      })();
      // a pause between rounds, as the deliverer's own loop has: on SQLite a round with nothing to send never yields
      const loop = async (d: WebhookDeliverer) => {
        while (writing) if ((await d.round()) === 0) await new Promise((r) => setTimeout(r, 5));
      };
      await Promise.all([writer, loop(a), loop(b)]);
      await until(30, a);
      const ids = rx.received.map((r) => r.id);
      expect(ids.filter((r) => rx.received.find((x) => x.id === r)?.payload.type === 'lead.created')).toHaveLength(30);
      expect(new Set(ids).size).toBe(ids.length);
    } finally {
      await other.close();
    }
  });

  it('every due endpoint gets its turn: twenty with nothing to send, older ones, do not keep a newer one waiting', async () => {
    // twenty quiet endpoints, due since a minute before the one that has something to send
    const quiet = await startReceiver();
    try {
      for (let i = 0; i < 20; i++) await createWebhook(f.db, { companyId: f.ids.companyA, url: quiet.url, events: ['dnc.added'] });
      await f.db.kysely
        .updateTable('webhooks')
        .set({ next_try_at: Date.now() - 60_000 })
        .execute();
      await hook({ events: ['lead.created'] });
      const id = await lead();
      await settled();
      const d = deliverer();
      const got = () => rx.received.some((r) => r.payload.data.leadId === id);
      for (let i = 0; i < 5 && !got(); i++) await d.round();
      // (on PostgreSQL an earlier test's event still held back when the endpoint was made may come too)
      expect(got()).toBe(true);
      expect(quiet.received).toHaveLength(0);
    } finally {
      await quiet.close();
    }
  });

  it('a receiver answering slowly gets a share of a round, not a whole page: the next round, and the other endpoints, come in time', async () => {
    await hook({ events: ['lead.created'] });
    rx.delayMs = 100;
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) ids.push(await lead());
    await settled();
    const d = new WebhookDeliverer({
      store: f.db,
      owner: 'test-a',
      outbound: local,
      logger: silent,
      retentionMs: 30 * 24 * H,
      roundMs: 250,
    });
    const t0 = performance.now();
    const sent = await d.round();
    // a share of about 250 ms: a few of the twelve, not the whole page
    expect(sent).toBeGreaterThan(0);
    expect(sent).toBeLessThan(12);
    expect(performance.now() - t0).toBeLessThan(1_500);
    // the rest follow in the next rounds, in order (after an earlier test's event still held back
    // on PostgreSQL when the endpoint was made, if there was one)
    const deadline = Date.now() + 15_000;
    while (rx.received.filter((r) => ids.includes(r.payload.data.leadId as string)).length < 12 && Date.now() < deadline) await d.round();
    expect(rx.received.map((r) => r.payload.data.leadId).filter((l) => ids.includes(l as string))).toEqual(ids);
  });

  it('prunes every event and try past EVENT_RETENTION, over several chunks, and keeps the rest', async () => {
    const { webhookId } = await hook();
    const old = Date.now() - 31 * 24 * H;
    const n = 12_001; // more than two chunks of 5000
    for (let i = 0; i < n; i += 1000) {
      const k = Math.min(1000, n - i);
      await f.db.kysely
        .insertInto('events')
        .values(
          Array.from({ length: k }, () => ({
            type: 'lead.created',
            company_id: f.ids.companyA,
            campaign_id: f.ids.campaignA,
            created_at: old,
            count: 1,
            items: '[]',
          })),
        )
        .execute();
      await f.db.kysely
        .insertInto('webhook_deliveries')
        .values(
          Array.from({ length: k }, (_, j) => ({
            webhook_id: webhookId,
            message_id: `msg_${i + j}`,
            event_type: 'lead.created',
            try: 1,
            ok: 1,
            status_code: 200,
            latency_ms: 1,
            error: null,
            created_at: old,
          })),
        )
        .execute();
    }
    await lead();
    const count = async (table: 'events' | 'webhook_deliveries', older: boolean) =>
      Number(
        (
          await f.db.kysely
            .selectFrom(table)
            .select((eb) => eb.fn.countAll().as('n'))
            .where('created_at', older ? '<' : '>=', Date.now() - 30 * 24 * H)
            .executeTakeFirstOrThrow()
        ).n,
      );
    const recent = await count('events', false);
    expect(recent).toBeGreaterThan(0);
    expect(await count('events', true)).toBeGreaterThanOrEqual(n);
    await deliverer().round(); // a new deliverer prunes in its first round
    expect(await count('events', true)).toBe(0);
    expect(await count('webhook_deliveries', true)).toBe(0);
    expect(await count('events', false)).toBe(recent);
  });

  it('replay never moves an endpoint forward past events it has not delivered, and refuses an instant to come', async () => {
    const created = await hook({ events: ['lead.created'] });
    rx.status = 503; // the receiver is down: the first event is retried, the rest wait behind it
    const leads = [await lead(), await lead()];
    await settled();
    const d = deliverer();
    await d.round();
    expect(rx.received).toHaveLength(1);
    const stuck = await f.db.webhooks.byId(created.webhookId);
    // an instant after both events: before, this moved the endpoint to the end, and they were never sent
    await replayWebhook(f.db, created.webhookId, Date.now() - 1);
    expect(await f.db.webhooks.byId(created.webhookId)).toMatchObject({
      pos_tx: stuck!.pos_tx,
      pos_id: stuck!.pos_id,
      pos_n: stuck!.pos_n,
    });
    await expect(replayWebhook(f.db, created.webhookId, Date.now() + 60_000)).rejects.toThrow('since: in the future');
    rx.status = 200;
    // the failed one again, then the rest: both leads' events arrive. (On PostgreSQL a new endpoint
    // starts at the events settled when it was made, so an earlier test's event still held back by
    // an older transaction on the server may come first: the first delivery is whichever that is.)
    const sent = () => new Set(rx.received.map((r) => r.payload.data.leadId));
    const deadline = Date.now() + 15_000;
    while (!leads.every((l) => sent().has(l)) && Date.now() < deadline)
      if ((await d.round()) === 0) await new Promise((r) => setTimeout(r, 20));
    expect(leads.filter((l) => sent().has(l))).toEqual(leads);
    expect(rx.received.filter((r) => r.id === rx.received[0]!.id).length).toBeGreaterThanOrEqual(2);
  });
});
