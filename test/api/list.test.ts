/**
 * GET /api/v1/leads (and /records): pages, limits, cursors, the status filter,
 * incremental sync and a walk that survives concurrent inserts and deletes.
 * docs/api.md "Endpoints", docs/api.md "Leads".
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableStores } from '../helpers/db.js';
import { type Fixture, makeFixture } from '../helpers/fixture.js';
import { expectError, expectFieldError, expectRateHeaders, listAll, ok, phone, phoneLeads, PREFIXES, seed } from './support.js';

describe.each(await availableStores())('list leads on %s', (kind) => {
  let f: Fixture;
  let big: string[]; // 8001 lead ids in campaignA2, in creation order
  beforeAll(async () => {
    f = await makeFixture(kind);
    big = await seed(f, f.ids.campaignA2, phoneLeads(8001));
  });
  afterAll(() => f.close());

  const list = (prefix: string, query: Record<string, string>, key?: string) => f.request('GET', prefix, { query, key });

  describe.each(PREFIXES)('%s', (prefix) => {
    it('an empty campaign: an empty page whose cursor is a string', async () => {
      const res = await list(prefix, { campaignId: f.ids.campaignB }, f.keys.writeB);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expectRateHeaders(res);
      expect(res.body).toEqual({ success: true, data: { leads: [], count: 0, cursor: expect.any(String), hasMore: false }, error: null });
      expect(res.body.data.cursor).not.toBe('');
    });

    it('the default page size is 1000', async () => {
      const first = ok(await list(prefix, { campaignId: f.ids.campaignA2 }));
      expect(first.count).toBe(1000);
      expect(first.leads).toHaveLength(1000);
      expect(first.hasMore).toBe(true);
      expect(first.leads.map((l: any) => l._id)).toEqual(big.slice(0, 1000));
      const second = ok(await list(prefix, { campaignId: f.ids.campaignA2, cursor: first.cursor }));
      expect(second.leads.map((l: any) => l._id)).toEqual(big.slice(1000, 2000));
    });

    it('a limit above 8000 is lowered to 8000', async () => {
      for (const limit of ['8001', '100000', '99999999999999999999999']) {
        const page = ok(await list(prefix, { campaignId: f.ids.campaignA2, limit }));
        expect(page.count, limit).toBe(8000);
        expect(page.leads).toHaveLength(8000);
        expect(page.hasMore).toBe(true);
        const rest = ok(await list(prefix, { campaignId: f.ids.campaignA2, limit, cursor: page.cursor }));
        expect(rest.count).toBe(1);
        expect(rest.leads[0]._id).toBe(big[8000]);
        expect(rest.hasMore).toBe(false);
        expect(rest.cursor).toEqual(expect.any(String));
      }
      const exact = ok(await list(prefix, { campaignId: f.ids.campaignA2, limit: '8000' }));
      expect(exact.count).toBe(8000);
      expect(exact.leads.map((l: any) => l._id)).toEqual(big.slice(0, 8000));
    });

    it('hasMore is false when the page ends exactly at the last lead', async () => {
      const c = f.ids.prefetchA;
      await seed(f, c, phoneLeads(4));
      const total = (await listAll(f, c)).length;
      const page = ok(await list(prefix, { campaignId: c, limit: String(total) }));
      expect(page.count).toBe(total);
      expect(page.hasMore).toBe(false);
      const after = ok(await list(prefix, { campaignId: c, cursor: page.cursor }));
      expect(after).toEqual({ leads: [], count: 0, cursor: page.cursor, hasMore: false });
    });

    it.each(['0', '-1', 'abc', '1.5', '', ' 5', '1e3', '0x10'])('limit %j is a 400 naming limit', async (limit) => {
      expectFieldError(await list(prefix, { campaignId: f.ids.campaignA2, limit }), 'limit');
    });

    it('Invalid cursor: garbage and tampered cursors', async () => {
      const good = ok(await list(prefix, { campaignId: f.ids.campaignA2, limit: '3' })).cursor as string;
      const flip = (s: string, i: number) => s.slice(0, i) + (s[i] === 'A' ? 'B' : 'A') + s.slice(i + 1);
      const tampered = [
        'garbage!',
        'not a cursor',
        'AAAA',
        `${good}x`,
        `${good}=`,
        good.slice(0, -1),
        flip(good, 0),
        flip(good, 2),
        Buffer.from('v2.3').toString('base64url'),
        Buffer.from('v1.-3').toString('base64url'),
        Buffer.from('v1.03').toString('base64url'),
        Buffer.from('{"seq":3}').toString('base64url'),
        'x'.repeat(5000),
        '',
      ];
      for (const cursor of tampered) {
        if (cursor === good) continue;
        const res = await list(prefix, { campaignId: f.ids.campaignA2, cursor });
        expect(res.status, `cursor ${JSON.stringify(cursor).slice(0, 60)}`).toBe(400);
        expectError(res, 400, 'Invalid cursor');
      }
      // the untouched cursor still works
      ok(await list(prefix, { campaignId: f.ids.campaignA2, cursor: good }));
    });

    it('campaignId query parameter is required', async () => {
      expectError(await list(prefix, {}), 400, 'campaignId query parameter is required');
      expectError(await list(prefix, { campaignId: '' }), 400, 'campaignId query parameter is required');
      expectError(await list(prefix, { limit: '5' }), 400, 'campaignId query parameter is required');
      // a NUL character cannot be in any campaign id (PostgreSQL cannot even compare it): a 400, not a 500
      expectFieldError(await f.request('GET', `${prefix}?campaignId=${f.ids.campaignA}%00`), 'campaignId');
    });

    it('a query parameter given twice is a 400 naming it', async () => {
      const c = f.ids.campaignA;
      expectFieldError(await f.request('GET', `${prefix}?campaignId=${c}&campaignId=${c}`), 'campaignId');
      expectFieldError(await f.request('GET', `${prefix}?campaignId=${c}&limit=1&limit=2`), 'limit');
      expectFieldError(await f.request('GET', `${prefix}?campaignId=${c}&status=raw&status=raw`), 'status');
    });

    it('the status filter: raw returns them, the others none, an unknown status is a 400', async () => {
      const c = f.ids.campaignA;
      const all = await listAll(f, c);
      const raw = ok(await list(prefix, { campaignId: c, status: 'raw', limit: '8000' }));
      expect(raw.leads).toEqual(all);
      for (const status of ['attempting', 'exhausted', 'concluded']) {
        const page = ok(await list(prefix, { campaignId: c, status }));
        expect(page, status).toEqual({ leads: [], count: 0, cursor: expect.any(String), hasMore: false });
      }
      for (const status of ['bogus', 'RAW', '']) {
        expectFieldError(await list(prefix, { campaignId: c, status }), 'status');
      }
    });

    it('a cursor from one status filter stays valid with the filter', async () => {
      const c = f.ids.campaignA2;
      const first = ok(await list(prefix, { campaignId: c, status: 'raw', limit: '2' }));
      const next = ok(await list(prefix, { campaignId: c, status: 'raw', limit: '2', cursor: first.cursor }));
      expect([...first.leads, ...next.leads].map((l: any) => l._id)).toEqual(big.slice(0, 4));
    });
  });

  it('each lead has the documented fields and types', async () => {
    const c = f.ids.campaignA;
    const p = phone();
    ok(
      await f.request('POST', '/api/v1/leads', {
        body: {
          campaignId: c,
          phoneNumber: p,
          externalId: 'fields-1',
          metadata: { quote: 'a "b" \\ c', unicode: 'é✓' },
          scheduledFor: '2031-05-05T05:05:05Z',
          priority: 42,
        },
      }),
      201,
    );
    const lead = (await listAll(f, c)).find((l) => l.phoneNumber === p);
    expect(lead).toEqual({
      _id: expect.any(String),
      campaignId: c,
      phoneNumber: p,
      externalId: 'fields-1',
      metadata: { quote: 'a "b" \\ c', unicode: 'é✓' },
      status: 'raw',
      scheduledFor: '2031-05-05T05:05:05.000Z',
      priority: 42,
      attempts: 0,
      _creationTime: f.clock.now,
    });
  });

  it('incremental sync: the final cursor later yields exactly the leads created since', async () => {
    const c = f.ids.campaignA;
    await seed(f, c, phoneLeads(7));
    let cursor: string | undefined;
    const seen: string[] = [];
    for (;;) {
      const page = ok(await list('/api/v1/leads', { campaignId: c, limit: '3', ...(cursor ? { cursor } : {}) }));
      expect(typeof page.cursor).toBe('string');
      seen.push(...page.leads.map((l: any) => l._id));
      cursor = page.cursor;
      if (!page.hasMore) break;
    }
    expect(seen).toEqual((await listAll(f, c)).map((l) => l._id));
    // nothing new yet: an empty page, and the cursor keeps its place
    const empty = ok(await list('/api/v1/records', { campaignId: c, cursor: cursor! }));
    expect(empty).toEqual({ leads: [], count: 0, cursor, hasMore: false });
    const fresh = await seed(f, c, phoneLeads(5));
    const single = ok(await f.request('POST', '/api/v1/leads', { body: { campaignId: c, phoneNumber: phone() } }), 201).leadId;
    const since = ok(await list('/api/v1/leads', { campaignId: c, cursor: cursor! }));
    expect(since.leads.map((l: any) => l._id)).toEqual([...fresh, single]);
    expect(since.hasMore).toBe(false);
    // a cursor from the empty page also works
    const since2 = ok(await list('/api/v1/leads', { campaignId: c, cursor: empty.cursor }));
    expect(since2.leads.map((l: any) => l._id)).toEqual([...fresh, single]);
  });

  it("a cursor of another campaign, the company's or another's, is 400 Invalid cursor (it skipped leads)", async () => {
    for (const prefix of PREFIXES) {
      for (const [campaignId, key] of [
        [f.ids.campaignA2, f.keys.writeA],
        [f.ids.campaignB, f.keys.writeB],
      ] as const) {
        const foreign = ok(await list(prefix, { campaignId, limit: '1' }, key)).cursor;
        expectError(await list(prefix, { campaignId: f.ids.campaignA, cursor: foreign }), 400, 'Invalid cursor');
      }
    }
  });

  it('a cursor of the form before (base64url of v1. and the seq in base 36) is 400 Invalid cursor', async () => {
    // unbound and writable by anyone, it was an oracle of other companies' counts
    // (test/api/list-cursor-forgery.test.ts); read until this version (docs/operations.md)
    const v1 = (seq: number) => Buffer.from(`v1.${seq.toString(36)}`).toString('base64url');
    for (const prefix of PREFIXES) {
      for (const seq of [0, 1, 1e12]) {
        expectError(await list(prefix, { campaignId: f.ids.campaignA, cursor: v1(seq) }), 400, 'Invalid cursor');
      }
    }
  });

  it('a cursor says nothing of the leads other companies created between two pages', async () => {
    // the seq is shared by every lead of the deployment; cursors are encrypted, so two of them
    // around company B's creations differ in no way that counts them
    const cursor = async () => ok(await list('/api/v1/leads', { campaignId: f.ids.campaignA })).cursor as string;
    const before = await cursor();
    await seed(f, f.ids.campaignB, phoneLeads(7), f.keys.writeB);
    expect(await cursor()).toBe(before); // no lead of A's was added: the same position, the same cursor
    expect(before).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(Buffer.from(before, 'base64url').toString('latin1')).not.toMatch(/^v1\./);
  });

  it('THE WALK: inserts and deletes between pages never skip or repeat a lead that lives through the walk', async () => {
    const c = f.ids.campaignB;
    const key = f.keys.writeB;
    const initial = await seed(f, c, phoneLeads(60), key);
    const phoneOf = new Map((await listAll(f, c, key)).map((l) => [l._id as string, l.phoneNumber as string]));
    const deleted = new Set<string>();
    const inserted: string[] = [];
    const seenCount = new Map<string, number>();
    const visited: string[] = [];
    let cursor: string | undefined;
    let round = 0;
    const del = async (id: string) => {
      const res = await f.request('DELETE', '/api/v1/leads', { key, query: { campaignId: c, phoneNumber: phoneOf.get(id)! } });
      ok(res);
      deleted.add(id);
    };
    for (;;) {
      const page = ok(
        await list(round % 2 ? '/api/v1/records' : '/api/v1/leads', { campaignId: c, limit: '4', ...(cursor ? { cursor } : {}) }, key),
      );
      for (const l of page.leads) {
        seenCount.set(l._id, (seenCount.get(l._id) ?? 0) + 1);
        visited.push(l._id);
        expect(deleted.has(l._id), `deleted lead ${l._id} was returned`).toBe(false);
      }
      cursor = page.cursor;
      if (!page.hasMore) break;
      round++;
      expect(round).toBeLessThan(200);
      // between pages: add leads, delete one not yet visited, one visited, and the one just past the cursor
      const fresh = round <= 10 ? phoneLeads(2) : [];
      const added = await seed(f, c, fresh, key);
      for (const [i, id] of added.entries()) phoneOf.set(id, fresh[i]!.phoneNumber);
      inserted.push(...added);
      const unvisited = initial.filter((id) => !seenCount.has(id) && !deleted.has(id));
      if (round % 3 === 0 && unvisited.length > 2) await del(unvisited[unvisited.length - 1]!);
      if (round % 4 === 0 && unvisited.length > 2) await del(unvisited[0]!); // the lead right after the cursor
      const seenAlive = visited.filter((id) => !deleted.has(id));
      if (round % 2 === 0 && seenAlive.length > 0) await del(seenAlive[Math.floor(seenAlive.length / 2)]!);
      if (round === 5 && inserted.length > 0) await del(inserted[0]!); // an inserted lead, deleted before it is reached
    }
    expect(deleted.size).toBeGreaterThan(10);
    // no lead appeared twice
    for (const [id, n] of seenCount) expect(n, `lead ${id} seen ${n} times`).toBe(1);
    // every lead that existed for the whole walk was seen exactly once
    const survivors = initial.filter((id) => !deleted.has(id));
    for (const id of survivors) expect(seenCount.get(id), `survivor ${id}`).toBe(1);
    // leads inserted during the walk come after the cursor, so a walk that ends sees all that survived
    for (const id of inserted.filter((x) => !deleted.has(x))) expect(seenCount.get(id), `inserted ${id}`).toBe(1);
    // and the walk order is creation order
    const order = (await listAll(f, c, key)).map((l) => l._id);
    expect(visited.filter((id) => order.includes(id))).toEqual(order);
  });
});
