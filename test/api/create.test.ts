/**
 * POST /api/v1/leads (and /records): one lead. docs/api.md "Endpoints",
 * docs/api.md "Leads".
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableStores } from '../helpers/db.js';
import { type Fixture, makeFixture } from '../helpers/fixture.js';
import { countLeads, expectError, expectFieldError, expectRateHeaders, ext, listAll, ok, phone, PREFIXES } from './support.js';

describe.each(await availableStores())('create one lead on %s', (kind) => {
  let f: Fixture;
  beforeAll(async () => {
    f = await makeFixture(kind);
  });
  afterAll(() => f.close());

  const byId = async (campaignId: string, id: string) => (await listAll(f, campaignId)).find((l) => l._id === id);

  describe.each(PREFIXES)('%s', (prefix) => {
    const create = (body: unknown, key?: string) => f.request('POST', prefix, { body, key });

    it('201 with {leadId}, and the lead is listed as sent', async () => {
      const p = phone();
      const res = await create({
        campaignId: f.ids.campaignA,
        phoneNumber: p,
        externalId: ext(),
        metadata: { name: 'Ada', tags: ['a', 1, null, { x: true }] },
        priority: 100,
        scheduledFor: '2030-01-02T03:04:05Z',
      });
      const data = ok(res, 201);
      expect(Object.keys(data)).toEqual(['leadId']);
      expect(data.leadId).toEqual(expect.any(String));
      expectRateHeaders(res);
      const lead = await byId(f.ids.campaignA, data.leadId);
      expect(lead).toMatchObject({
        _id: data.leadId,
        campaignId: f.ids.campaignA,
        phoneNumber: p,
        metadata: { name: 'Ada', tags: ['a', 1, null, { x: true }] },
        status: 'raw',
        priority: 100,
        attempts: 0,
        scheduledFor: '2030-01-02T03:04:05.000Z',
      });
    });

    it('defaults: priority 0, metadata {}, no scheduledFor and no externalId keys', async () => {
      const res = await create({ campaignId: f.ids.campaignA, phoneNumber: phone() });
      const lead = await byId(f.ids.campaignA, ok(res, 201).leadId);
      expect(lead.priority).toBe(0);
      expect(lead.metadata).toEqual({});
      expect(lead).not.toHaveProperty('scheduledFor');
      expect(lead).not.toHaveProperty('externalId');
      expect(lead._creationTime).toBe(f.clock.now);
    });

    it('boundary values are accepted', async () => {
      const meta = { s: 'x'.repeat(16 * 1024 - '{"s":""}'.length) };
      expect(Buffer.byteLength(JSON.stringify(meta))).toBe(16 * 1024);
      for (const body of [
        { phoneNumber: prefix.endsWith('leads') ? '+12' : '+13' },
        { phoneNumber: prefix.endsWith('leads') ? '+123456789012345' : '+923456789012345' },
        { phoneNumber: phone(), priority: 0 },
        { phoneNumber: phone(), priority: 100 },
        { phoneNumber: phone(), externalId: (prefix.endsWith('leads') ? 'L' : 'R').padEnd(255, 'x') },
        { phoneNumber: phone(), metadata: meta },
        { phoneNumber: phone(), metadata: {} },
        { phoneNumber: phone(), scheduledFor: '2030-02-28T23:59:59.123-05:30' },
        { phoneNumber: phone(), scheduledFor: '2028-02-29T00:00:00Z' },
        { phoneNumber: phone(), scheduledFor: '2000-01-01T00:00:00Z' },
      ]) {
        const res = await create({ campaignId: f.ids.campaignA2, ...body });
        expect(res.status, JSON.stringify(body).slice(0, 120)).toBe(201);
      }
    });

    it.each([
      ['+0123', 'leading zero'],
      ['123', 'no plus'],
      ['+1', 'too short'],
      ['+1234567890123456', '16 digits'],
      ['+1 415 555 0100', 'spaces'],
      ['', 'empty'],
      [14155550100, 'a number'],
    ])('phoneNumber %j (%s) is a 400 naming phoneNumber', async (value, _label) => {
      expectFieldError(await create({ campaignId: f.ids.campaignA, phoneNumber: value }), 'phoneNumber');
    });

    it.each([[-1], [101], [1.5], ['5'], [null], [true]])('priority %j is a 400 naming priority', async (value) => {
      expectFieldError(await create({ campaignId: f.ids.campaignA, phoneNumber: phone(), priority: value }), 'priority');
    });

    it.each([
      ['2030-01-02T03:04:05', 'no zone'],
      ['2030-02-30T10:00:00Z', 'no such day'],
      ['2030-13-01T10:00:00Z', 'no such month'],
      ['2030-01-01T24:00:00Z', 'hour 24'],
      ['2030-01-02', 'a date only'],
      ['tomorrow', 'not a timestamp'],
      [1893456000000, 'a number'],
    ])('scheduledFor %j (%s) is a 400 naming scheduledFor', async (value, _label) => {
      expectFieldError(await create({ campaignId: f.ids.campaignA, phoneNumber: phone(), scheduledFor: value }), 'scheduledFor');
    });

    it.each([
      ['an array', [1, 2]],
      ['null', null],
      ['a string', '{"a":1}'],
      ['over 16 KiB', { s: 'x'.repeat(16 * 1024) }],
    ])('metadata: %s is a 400 naming metadata', async (_label, value) => {
      expectFieldError(await create({ campaignId: f.ids.campaignA, phoneNumber: phone(), metadata: value }), 'metadata');
    });

    it.each([
      ['empty', ''],
      ['256 characters', 'x'.repeat(256)],
      ['a number', 42],
      ['null', null],
    ])('externalId: %s is a 400 naming externalId', async (_label, value) => {
      expectFieldError(await create({ campaignId: f.ids.campaignA, phoneNumber: phone(), externalId: value }), 'externalId');
    });

    // PostgreSQL cannot store NUL in text, and an unpaired UTF-16 surrogate cannot be
    // stored as given in either database: both are a 400 naming the field, on every store.
    it.each([
      ['a NUL character', 'crm\u0000x'],
      ['an unpaired surrogate', 'crm\ud800x'],
      ['a lone low surrogate', '\udc00'],
    ])('externalId with %s is a 400 naming externalId', async (_label, value) => {
      expectFieldError(await create({ campaignId: f.ids.campaignA, phoneNumber: phone(), externalId: value }), 'externalId');
      expectFieldError(await create({ campaignId: f.ids.prefetchA, externalId: value }), 'externalId');
    });

    it('campaignId with a NUL character is a 400 naming campaignId', async () => {
      expectFieldError(await create({ campaignId: `${f.ids.campaignA}\u0000`, phoneNumber: phone() }), 'campaignId');
    });

    it('externalId text is stored and returned exactly: quotes, backslashes, newlines, astral characters', async () => {
      const value = `q"u\\o\nte\u2028é😀${prefix}`;
      const id = ok(await create({ campaignId: f.ids.campaignA, phoneNumber: phone(), externalId: value }), 201).leadId;
      expect((await byId(f.ids.campaignA, id)).externalId).toBe(value);
      expectError(
        await create({ campaignId: f.ids.campaignA, phoneNumber: phone(), externalId: value }),
        409,
        `Lead with externalId ${value} already exists`,
      );
      ok(await f.request('DELETE', prefix, { query: { campaignId: f.ids.campaignA, externalId: value } }));
    });

    it('campaignId missing or empty: campaignId is required', async () => {
      expectError(await create({ phoneNumber: phone() }), 400, 'campaignId is required');
      expectError(await create({ campaignId: '', phoneNumber: phone() }), 400, 'campaignId is required');
      expectFieldError(await create({ campaignId: 7, phoneNumber: phone() }), 'campaignId');
    });

    it('neither identifier: At least one of phoneNumber or externalId is required', async () => {
      expectError(await create({ campaignId: f.ids.campaignA }), 400, 'At least one of phoneNumber or externalId is required');
      expectError(
        await create({ campaignId: f.ids.campaignA, metadata: { a: 1 }, priority: 3 }),
        400,
        'At least one of phoneNumber or externalId is required',
      );
    });

    it('a body that is not a JSON object is a 400', async () => {
      for (const body of ['[]', 'null', '"lead"', '42']) {
        const res = await f.request('POST', prefix, { body, headers: { 'content-type': 'application/json' } });
        expect(res.status, body).toBe(400);
        expect(res.body).toEqual({ success: false, data: null, error: expect.any(String) });
      }
    });

    it('duplicates: 409, externalId checked first, and nothing is created', async () => {
      const c = f.ids.campaignA;
      const [p1, p2, e1] = [phone(), phone(), ext()];
      ok(await create({ campaignId: c, phoneNumber: p1, externalId: e1 }), 201);
      const before = await countLeads(f, c);
      // same externalId, new phone
      expectError(await create({ campaignId: c, phoneNumber: p2, externalId: e1 }), 409, `Lead with externalId ${e1} already exists`);
      // same phone, no externalId
      expectError(await create({ campaignId: c, phoneNumber: p1 }), 409, `Lead with phone number ${p1} already exists`);
      // same phone, new externalId
      expectError(await create({ campaignId: c, phoneNumber: p1, externalId: ext() }), 409, `Lead with phone number ${p1} already exists`);
      // both match: externalId is reported
      expectError(await create({ campaignId: c, phoneNumber: p1, externalId: e1 }), 409, `Lead with externalId ${e1} already exists`);
      // externalId of one lead, phone of another: externalId is reported
      const p3 = phone();
      ok(await create({ campaignId: c, phoneNumber: p3 }), 201);
      expectError(await create({ campaignId: c, phoneNumber: p3, externalId: e1 }), 409, `Lead with externalId ${e1} already exists`);
      expect(await countLeads(f, c)).toBe(before + 1);
    });

    it('deduplication is per campaign', async () => {
      const [p, e] = [phone(), ext()];
      ok(await create({ campaignId: f.ids.campaignA, phoneNumber: p, externalId: e }), 201);
      ok(await create({ campaignId: f.ids.campaignA2, phoneNumber: p, externalId: e }), 201);
      ok(await create({ campaignId: f.ids.campaignB, phoneNumber: p, externalId: e }, f.keys.writeB), 201);
    });

    it('externalId only: 400 on a campaign without predial, 201 on a prefetch campaign', async () => {
      const e = ext('prefetch');
      expectError(
        await create({ campaignId: f.ids.campaignA, externalId: e }),
        400,
        'Campaign has no predial function configured; phoneNumber is required',
      );
      const res = await create({ campaignId: f.ids.prefetchA, externalId: e, metadata: { crm: 'x' } });
      const lead = await byId(f.ids.prefetchA, ok(res, 201).leadId);
      expect(lead).toMatchObject({ externalId: e, metadata: { crm: 'x' }, status: 'raw' });
      expect(lead).not.toHaveProperty('phoneNumber');
      expectError(await create({ campaignId: f.ids.prefetchA, externalId: e }), 409, `Lead with externalId ${e} already exists`);
    });

    it('scheduledFor with an offset is returned normalised to UTC', async () => {
      const cases: [string, string][] = [
        ['2030-01-02T03:04:05+01:00', '2030-01-02T02:04:05.000Z'],
        ['2030-01-01T23:30:00-05:30', '2030-01-02T05:00:00.000Z'],
        ['2030-06-15T12:00:00.5Z', '2030-06-15T12:00:00.500Z'],
        ['2030-06-15T12:00Z', '2030-06-15T12:00:00.000Z'],
      ];
      for (const [input, expected] of cases) {
        const res = await create({ campaignId: f.ids.campaignA, phoneNumber: phone(), scheduledFor: input });
        const lead = await byId(f.ids.campaignA, ok(res, 201).leadId);
        expect(lead.scheduledFor, input).toBe(expected);
      }
    });

    it('server-controlled and unknown fields in the input are ignored', async () => {
      const p = phone();
      const res = await create({
        campaignId: f.ids.campaignA,
        phoneNumber: p,
        _id: 'ld_forged',
        status: 'concluded',
        attempts: 7,
        _creationTime: 123,
        favouriteColour: 'blue',
      });
      const id = ok(res, 201).leadId;
      expect(id).not.toBe('ld_forged');
      const lead = await byId(f.ids.campaignA, id);
      expect(lead).toMatchObject({ _id: id, phoneNumber: p, status: 'raw', attempts: 0 });
      expect(lead._creationTime).not.toBe(123);
      expect(lead).not.toHaveProperty('favouriteColour');
      expect(await byId(f.ids.campaignA, 'ld_forged')).toBeUndefined();
    });

    it('deleting and re-creating the same identifiers works', async () => {
      const [p, e] = [phone(), ext()];
      const first = ok(await create({ campaignId: f.ids.campaignA, phoneNumber: p, externalId: e }), 201).leadId;
      ok(await f.request('DELETE', prefix, { query: { campaignId: f.ids.campaignA, externalId: e } }));
      const second = ok(await create({ campaignId: f.ids.campaignA, phoneNumber: p, externalId: e }), 201).leadId;
      expect(second).not.toBe(first);
      ok(await f.request('DELETE', prefix, { query: { campaignId: f.ids.campaignA, phoneNumber: p } }));
      ok(await create({ campaignId: f.ids.campaignA, phoneNumber: p }), 201);
    });
  });
});
