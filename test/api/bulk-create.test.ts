/**
 * POST /api/v1/leads/bulk (and /records/bulk). docs/api.md "Endpoints",
 * docs/api.md "Leads" and "Bulk requests".
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableStores } from '../helpers/db.js';
import { type Fixture, makeFixture } from '../helpers/fixture.js';
import { countLeads, expectError, expectFieldError, expectRateHeaders, ext, listAll, ok, phone, phoneLeads, PREFIXES } from './support.js';

const NO_PREDIAL = 'Campaign has no predial function configured; phoneNumber is required';

describe.each(await availableStores())('bulk create on %s', (kind) => {
  let f: Fixture;
  beforeAll(async () => {
    f = await makeFixture(kind);
  });
  afterAll(() => f.close());

  describe.each(PREFIXES)('%s', (prefix) => {
    const bulk = (body: unknown, key?: string) => f.request('POST', `${prefix}/bulk`, { body, key });

    it('200 with counts and ids; the leads are listed in request order', async () => {
      const c = f.ids.campaignA2;
      const before = await listAll(f, c);
      const leads = [
        { phoneNumber: phone(), metadata: { n: 1 }, priority: 5 },
        { phoneNumber: phone(), externalId: ext(), scheduledFor: '2030-01-02T03:04:05+02:00' },
        { phoneNumber: phone() },
      ];
      const res = await bulk({ campaignId: c, leads });
      const data = ok(res);
      expectRateHeaders(res);
      expect(data).toEqual({ created: 3, skipped: 0, createdIds: expect.any(Array), skippedIdentifiers: [] });
      expect(new Set(data.createdIds).size).toBe(3);
      const added = (await listAll(f, c)).slice(before.length);
      expect(added.map((l) => l._id)).toEqual(data.createdIds);
      expect(added.map((l) => l.phoneNumber)).toEqual(leads.map((l) => l.phoneNumber));
      expect(added[0]).toMatchObject({ metadata: { n: 1 }, priority: 5, status: 'raw', attempts: 0, campaignId: c });
      expect(added[1]).toMatchObject({ externalId: leads[1]!.externalId, scheduledFor: '2030-01-02T01:04:05.000Z' });
    });

    it('duplicates against existing leads and within the batch are skipped, reporting the identifier that matched', async () => {
      const c = f.ids.campaignA;
      const [p1, p2, p3, p4, p5] = [phone(), phone(), phone(), phone(), phone()];
      const [e1, e2, e3] = [ext(), ext(), ext()];
      ok(await f.request('POST', prefix, { body: { campaignId: c, phoneNumber: p1, externalId: e1 } }), 201);
      const before = await countLeads(f, c);
      const res = await bulk({
        campaignId: c,
        leads: [
          { phoneNumber: p1 }, // existing phone
          { phoneNumber: p2, externalId: e1 }, // existing externalId, new phone
          { phoneNumber: p1, externalId: e1 }, // both: externalId reported
          { phoneNumber: p3, externalId: e2 }, // new
          { phoneNumber: p4, externalId: e2 }, // repeats entry 3's externalId
          { phoneNumber: p3, externalId: e3 }, // repeats entry 3's phone
          { phoneNumber: p5 }, // new
          { phoneNumber: p5 }, // repeats entry 6
        ],
      });
      const data = ok(res);
      expect(data.created).toBe(2);
      expect(data.skipped).toBe(6);
      expect(data.createdIds).toHaveLength(2);
      expect(data.skippedIdentifiers).toEqual([p1, e1, e1, e2, p3, p5]);
      expect(await countLeads(f, c)).toBe(before + 2);
      // the entries that lost (p4, e3, p2) were not written
      const all = await listAll(f, c);
      expect(all.filter((l) => [p2, p4].includes(l.phoneNumber) || l.externalId === e3)).toEqual([]);
      expect(all.find((l) => l.phoneNumber === p3)).toMatchObject({ externalId: e2 });
    });

    it('the same rules when the first entry is new (the insert-first path)', async () => {
      const c = f.ids.campaignA;
      const [p1, p2, p3, p4, p5, p6] = [phone(), phone(), phone(), phone(), phone(), phone()];
      const [e1, e2, e3, e4] = [ext(), ext(), ext(), ext()];
      ok(await f.request('POST', prefix, { body: { campaignId: c, phoneNumber: p1, externalId: e1 } }), 201);
      const before = await countLeads(f, c);
      const res = await bulk({
        campaignId: c,
        leads: [
          { phoneNumber: p6, externalId: e4 }, // new: the first entry decides the path
          { phoneNumber: p1 }, // existing phone
          { phoneNumber: p2, externalId: e1 }, // existing externalId, new phone
          { phoneNumber: p1, externalId: e1 }, // both: externalId reported
          { phoneNumber: p3, externalId: e2 }, // new
          { phoneNumber: p4, externalId: e2 }, // repeats entry 4's externalId
          { phoneNumber: p3, externalId: e3 }, // repeats entry 4's phone
          { phoneNumber: p5 }, // new
          { phoneNumber: p5 }, // repeats entry 7
          { phoneNumber: p6 }, // repeats entry 0's phone
        ],
      });
      const data = ok(res);
      expect(data.created).toBe(3);
      expect(data.skippedIdentifiers).toEqual([p1, e1, e1, e2, p3, p5, p6]);
      expect(data.skipped).toBe(7);
      expect(await countLeads(f, c)).toBe(before + 3);
      const all = await listAll(f, c);
      expect(all.filter((l) => [p2, p4].includes(l.phoneNumber) || l.externalId === e3)).toEqual([]);
      expect(all.find((l) => l.phoneNumber === p3)).toMatchObject({ externalId: e2 });
      const added = all.slice(-3);
      expect(added.map((l) => l._id)).toEqual(data.createdIds);
      expect(added.map((l) => l.phoneNumber)).toEqual([p6, p3, p5]);
    });

    it('repeating the same request creates nothing new', async () => {
      const c = f.ids.campaignA;
      const leads = [{ phoneNumber: phone(), externalId: ext() }, { phoneNumber: phone() }, { phoneNumber: phone(), externalId: ext() }];
      const first = ok(await bulk({ campaignId: c, leads }));
      expect(first.created).toBe(3);
      const count = await countLeads(f, c);
      const again = ok(await bulk({ campaignId: c, leads }));
      expect(again).toEqual({
        created: 0,
        skipped: 3,
        createdIds: [],
        skippedIdentifiers: [leads[0]!.externalId, leads[1]!.phoneNumber, leads[2]!.externalId],
      });
      expect(await countLeads(f, c)).toBe(count);
    });

    it('prefetch entries: allowed on a campaign with predial, mixed with standard ones', async () => {
      const e = ext('pf');
      const p = phone();
      const data = ok(await bulk({ campaignId: f.ids.prefetchA, leads: [{ externalId: e }, { phoneNumber: p }, { externalId: e }] }));
      expect(data).toMatchObject({ created: 2, skipped: 1, skippedIdentifiers: [e] });
      const all = await listAll(f, f.ids.prefetchA);
      const lead = all.find((l) => l.externalId === e);
      expect(lead).not.toHaveProperty('phoneNumber');
    });

    it('a prefetch entry on a campaign without predial: leads[N]: … and nothing is written', async () => {
      const c = f.ids.campaignA;
      const before = await countLeads(f, c);
      const res = await bulk({
        campaignId: c,
        leads: [{ phoneNumber: phone() }, { phoneNumber: phone(), externalId: ext() }, { externalId: ext() }, { externalId: ext() }],
      });
      expectError(res, 400, `leads[2]: ${NO_PREDIAL}`);
      expect(await countLeads(f, c)).toBe(before);
    });

    it('server-controlled and unknown fields in entries are ignored (campaignId inside an entry too)', async () => {
      const p = phone();
      const data = ok(
        await bulk({
          campaignId: f.ids.campaignA,
          leads: [
            {
              phoneNumber: p,
              campaignId: f.ids.campaignA2,
              _id: 'ld_forged',
              status: 'exhausted',
              attempts: 9,
              _creationTime: 1,
              colour: 'red',
            },
          ],
        }),
      );
      const lead = (await listAll(f, f.ids.campaignA)).find((l) => l.phoneNumber === p);
      expect(lead).toMatchObject({ _id: data.createdIds[0], campaignId: f.ids.campaignA, status: 'raw', attempts: 0 });
      expect(lead._creationTime).not.toBe(1);
      expect(lead).not.toHaveProperty('colour');
      expect((await listAll(f, f.ids.campaignA2)).some((l) => l.phoneNumber === p)).toBe(false);
    });

    it('the FIRST invalid entry is named, zero-based, and nothing is written', async () => {
      const c = f.ids.campaignA;
      const before = await countLeads(f, c);
      const valid = () => ({ phoneNumber: phone() });
      const cases: [unknown[], string | RegExp, number][] = [
        [[valid(), valid(), {}], 'leads[2]: At least one of phoneNumber or externalId is required', 2],
        [[{ metadata: { a: 1 } }, valid()], 'leads[0]: At least one of phoneNumber or externalId is required', 0],
        [[valid(), { phoneNumber: '+0123' }, {}], /^leads\[1\]: .*phoneNumber/, 1],
        [[valid(), valid(), valid(), { phoneNumber: phone(), priority: 101 }, { phoneNumber: 'x' }], /^leads\[3\]: .*priority/, 3],
        [[valid(), { phoneNumber: phone(), priority: '5' }], /^leads\[1\]: .*priority/, 1],
        [[valid(), { phoneNumber: phone(), scheduledFor: '2030-01-02T03:04:05' }], /^leads\[1\]: .*scheduledFor/, 1],
        [[valid(), { phoneNumber: phone(), scheduledFor: '2030-02-30T10:00:00Z' }], /^leads\[1\]: .*scheduledFor/, 1],
        [[{ phoneNumber: phone(), metadata: [] }], /^leads\[0\]: .*metadata/, 0],
        [[valid(), { phoneNumber: phone(), metadata: { s: 'x'.repeat(17000) } }], /^leads\[1\]: .*metadata/, 1],
        [[valid(), { phoneNumber: phone(), externalId: '' }], /^leads\[1\]: .*externalId/, 1],
        [[valid(), { phoneNumber: phone(), externalId: 'nul\u0000' }], /^leads\[1\]: .*externalId/, 1],
        [[valid(), valid(), { phoneNumber: phone(), externalId: 'half\ud83d' }], /^leads\[2\]: .*externalId/, 2],
        [[valid(), valid(), 'not an object'], /^leads\[2\]: /, 2],
        [[valid(), null], /^leads\[1\]: /, 1],
      ];
      for (const [leads, message, index] of cases) {
        const res = await bulk({ campaignId: c, leads });
        expect(res.status, JSON.stringify(leads).slice(0, 200)).toBe(400);
        expect(res.body).toEqual({ success: false, data: null, error: expect.any(String) });
        if (typeof message === 'string') expect(res.body.error).toBe(message);
        else expect(res.body.error).toMatch(message);
        expect(res.body.error.startsWith(`leads[${index}]: `)).toBe(true);
      }
      expect(await countLeads(f, c)).toBe(before);
    });

    // docs/api.md "Bulk requests": the FIRST invalid entry (lowest index) is named, and "externalId only on a
    // campaign without predial" is a leads[N] 400 even though the schema refused a later entry.
    it('a predial error at a lower index is named before a schema error at a higher one', async () => {
      const res = await bulk({ campaignId: f.ids.campaignA, leads: [{ externalId: ext() }, { phoneNumber: 'bad' }] });
      expectError(res, 400, `leads[0]: ${NO_PREDIAL}`);
    });

    it('an invalid entry at index 999 fails the whole 1000-entry request and writes nothing', async () => {
      const c = f.ids.campaignA2;
      const before = await countLeads(f, c);
      const leads: object[] = phoneLeads(1000);
      leads[999] = { phoneNumber: '+1234567890123456' };
      const res = await bulk({ campaignId: c, leads });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatch(/^leads\[999\]: .*phoneNumber/);
      leads[999] = {};
      expectError(await bulk({ campaignId: c, leads }), 400, 'leads[999]: At least one of phoneNumber or externalId is required');
      expect(await countLeads(f, c)).toBe(before);
    });

    it('a prefetch entry at index 999 on a campaign without predial writes nothing', async () => {
      const c = f.ids.campaignA2;
      const before = await countLeads(f, c);
      const leads: object[] = phoneLeads(1000);
      leads[999] = { externalId: ext() };
      expectError(await bulk({ campaignId: c, leads }), 400, `leads[999]: ${NO_PREDIAL}`);
      expect(await countLeads(f, c)).toBe(before);
    });

    it('leads missing, not an array, empty, or over 1000', async () => {
      const c = f.ids.campaignA;
      expectError(await bulk({ campaignId: c }), 400, 'leads array is required');
      for (const leads of ['x', {}, null, 5, { 0: { phoneNumber: phone() } }]) {
        expectError(await bulk({ campaignId: c, leads }), 400, 'leads array is required');
      }
      expectError(await bulk({ campaignId: c, leads: [] }), 400, 'leads array cannot be empty');
      const before = await countLeads(f, c);
      expectError(await bulk({ campaignId: c, leads: phoneLeads(1001) }), 400, 'Maximum 1000 leads per bulk request');
      expect(await countLeads(f, c)).toBe(before);
    });

    it('campaignId missing or empty: campaignId is required', async () => {
      expectError(await bulk({ leads: [{ phoneNumber: phone() }] }), 400, 'campaignId is required');
      expectError(await bulk({ campaignId: '', leads: [{ phoneNumber: phone() }] }), 400, 'campaignId is required');
      expectFieldError(await bulk({ campaignId: ['x'], leads: [{ phoneNumber: phone() }] }), 'campaignId');
    });

    it('a body that is not a JSON object is a 400', async () => {
      for (const body of ['[]', 'null', '"x"']) {
        const res = await f.request('POST', `${prefix}/bulk`, { body, headers: { 'content-type': 'application/json' } });
        expect(res.status, body).toBe(400);
        expect(res.body).toEqual({ success: false, data: null, error: expect.any(String) });
      }
    });
  });

  it('a 1000-lead bulk works and the list returns them in request order', async () => {
    const c = f.ids.campaignB;
    const leads = Array.from({ length: 1000 }, (_, i) => ({
      phoneNumber: phone(),
      ...(i % 3 === 0 ? { externalId: `big-${i}` } : {}),
      ...(i % 7 === 0 ? { metadata: { i } } : {}),
      priority: i % 101,
    }));
    const data = ok(await f.request('POST', '/api/v1/records/bulk', { key: f.keys.writeB, body: { campaignId: c, leads } }));
    expect(data.created).toBe(1000);
    expect(data.skipped).toBe(0);
    expect(new Set(data.createdIds).size).toBe(1000);
    const all = await listAll(f, c, f.keys.writeB);
    expect(all.map((l) => l._id)).toEqual(data.createdIds);
    expect(all.map((l) => l.phoneNumber)).toEqual(leads.map((l) => l.phoneNumber));
    expect(all.map((l) => l.priority)).toEqual(leads.map((l) => l.priority));
    expect(all[7].metadata).toEqual({ i: 7 });
    expect(all[3].externalId).toBe('big-3');
    expect(all[1]).not.toHaveProperty('externalId');
  });

  it('a 1000-lead bulk whose repeats fall in different insert chunks skips exactly the later ones, in request order', async () => {
    // SQLite inserts a bulk in chunks of powers of two (512, 256, 128, 64, 32, 8): a repeat of a lead
    // inserted by an earlier chunk must be skipped as surely as one within the same chunk.
    const c = f.ids.campaignB;
    const leads: { phoneNumber?: string; externalId?: string }[] = Array.from({ length: 1000 }, (_, i) => ({
      phoneNumber: phone(),
      externalId: `chunk-${i}`,
    }));
    leads[600] = { phoneNumber: leads[5]!.phoneNumber }; // the phone of a lead from the first chunk
    leads[999] = { externalId: 'chunk-0', phoneNumber: phone() }; // the externalId of the very first lead
    leads[800] = { externalId: 'chunk-790', phoneNumber: phone() }; // a repeat inside the chunk of 128
    const data = ok(await f.request('POST', '/api/v1/leads/bulk', { key: f.keys.writeB, body: { campaignId: c, leads } }));
    expect(data.created).toBe(997);
    expect(data.skippedIdentifiers).toEqual([leads[5]!.phoneNumber, 'chunk-790', 'chunk-0']);
  });

  it('a restricted key may bulk-create only in its campaign', async () => {
    ok(
      await f.request('POST', '/api/v1/leads/bulk', {
        key: f.keys.restrictedA,
        body: { campaignId: f.ids.campaignA, leads: [{ phoneNumber: phone() }] },
      }),
    );
    expectError(
      await f.request('POST', '/api/v1/leads/bulk', {
        key: f.keys.restrictedA,
        body: { campaignId: f.ids.campaignA2, leads: [{ phoneNumber: phone() }] },
      }),
      404,
      'Campaign not found or access denied',
    );
  });
});
