/**
 * POST /api/v1/leads/bulk-delete (and /records/bulk-delete).
 * docs/api.md "Endpoints", docs/api.md "Bulk requests".
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableStores } from '../helpers/db.js';
import { type Fixture, makeFixture } from '../helpers/fixture.js';
import {
  countLeads,
  expectError,
  expectFieldError,
  expectRateHeaders,
  ext,
  listAll,
  ok,
  phone,
  phoneLeads,
  PREFIXES,
  seed,
} from './support.js';

describe.each(await availableStores())('bulk delete on %s', (kind) => {
  let f: Fixture;
  beforeAll(async () => {
    f = await makeFixture(kind);
  });
  afterAll(() => f.close());

  const ids = async (campaignId: string) => (await listAll(f, campaignId)).map((l) => l._id as string);

  describe.each(PREFIXES)('%s', (prefix) => {
    const bulkDelete = (body: unknown, key?: string) => f.request('POST', `${prefix}/bulk-delete`, { body, key });

    it('deletes by externalId and phoneNumber and reports counts and identifiers', async () => {
      const c = f.ids.campaignA;
      const [p1, p2, p3, e1, e3] = [phone(), phone(), phone(), ext(), ext()];
      const [id1, id2, id3, keep] = await seed(f, c, [
        { phoneNumber: p1, externalId: e1, metadata: { secret: 'hush' } },
        { phoneNumber: p2 },
        { phoneNumber: p3, externalId: e3 },
        { phoneNumber: phone() },
      ]);
      const res = await bulkDelete({
        campaignId: c,
        leads: [
          { externalId: e1 },
          { phoneNumber: p2 },
          { externalId: e3, phoneNumber: '+19999999998' },
          { externalId: 'ghost' },
          { phoneNumber: '+19999999999' },
        ],
      });
      expectRateHeaders(res);
      expect(res.body).toEqual({
        success: true,
        data: { deleted: 3, notFound: 2, deletedIdentifiers: [e1, p2, e3], notFoundIdentifiers: ['ghost', '+19999999999'] },
        error: null,
      });
      expect(JSON.stringify(res.body)).not.toContain('hush');
      const left = await ids(c);
      for (const id of [id1, id2, id3]) expect(left).not.toContain(id);
      expect(left).toContain(keep);
    });

    it('an entry repeated in the request is notFound the second time', async () => {
      const c = f.ids.campaignA;
      const [p, e] = [phone(), ext()];
      await seed(f, c, [{ phoneNumber: p }, { phoneNumber: phone(), externalId: e }]);
      const data = ok(
        await bulkDelete({ campaignId: c, leads: [{ phoneNumber: p }, { externalId: e }, { phoneNumber: p }, { externalId: e }] }),
      );
      expect(data).toEqual({ deleted: 2, notFound: 2, deletedIdentifiers: [p, e], notFoundIdentifiers: [p, e] });
    });

    it('a lead named by externalId and later by its phone is deleted once', async () => {
      const c = f.ids.campaignA;
      const [p, e] = [phone(), ext()];
      const before = await countLeads(f, c);
      await seed(f, c, [{ phoneNumber: p, externalId: e }]);
      const data = ok(await bulkDelete({ campaignId: c, leads: [{ externalId: e }, { phoneNumber: p }] }));
      expect(data).toEqual({ deleted: 1, notFound: 1, deletedIdentifiers: [e], notFoundIdentifiers: [p] });
      expect(await countLeads(f, c)).toBe(before);
      // and the other way round
      await seed(f, c, [{ phoneNumber: p, externalId: e }]);
      const reverse = ok(await bulkDelete({ campaignId: c, leads: [{ phoneNumber: p }, { externalId: e }] }));
      expect(reverse).toEqual({ deleted: 1, notFound: 1, deletedIdentifiers: [p], notFoundIdentifiers: [e] });
    });

    it('externalId takes priority: the phone given beside it is not used for the lookup', async () => {
      const c = f.ids.campaignA;
      const [p1, p2, e1] = [phone(), phone(), ext()];
      const [first, second] = await seed(f, c, [{ phoneNumber: p1, externalId: e1 }, { phoneNumber: p2 }]);
      const data = ok(
        await bulkDelete({
          campaignId: c,
          leads: [
            { externalId: e1, phoneNumber: p2 },
            { externalId: 'nobody', phoneNumber: p2 },
          ],
        }),
      );
      expect(data).toEqual({ deleted: 1, notFound: 1, deletedIdentifiers: [e1], notFoundIdentifiers: ['nobody'] });
      const left = await ids(c);
      expect(left).not.toContain(first);
      expect(left).toContain(second);
    });

    it('leads of another campaign are notFound and survive', async () => {
      const [p, e] = [phone(), ext()];
      const [inA2] = await seed(f, f.ids.campaignA2, [{ phoneNumber: p, externalId: e }]);
      const [inB] = await seed(f, f.ids.campaignB, [{ phoneNumber: p, externalId: e }], f.keys.writeB);
      const data = ok(await bulkDelete({ campaignId: f.ids.campaignA, leads: [{ phoneNumber: p }, { externalId: e }] }));
      expect(data).toEqual({ deleted: 0, notFound: 2, deletedIdentifiers: [], notFoundIdentifiers: [p, e] });
      expect(await ids(f.ids.campaignA2)).toContain(inA2);
      expect((await listAll(f, f.ids.campaignB, f.keys.writeB)).map((l) => l._id)).toContain(inB);
    });

    it('repeating the request is safe', async () => {
      const c = f.ids.campaignA;
      const leads = [{ phoneNumber: phone() }, { phoneNumber: phone(), externalId: ext() }];
      await seed(f, c, leads);
      const entries = [{ phoneNumber: leads[0]!.phoneNumber }, { externalId: leads[1]!.externalId! }];
      expect(ok(await bulkDelete({ campaignId: c, leads: entries })).deleted).toBe(2);
      expect(ok(await bulkDelete({ campaignId: c, leads: entries }))).toEqual({
        deleted: 0,
        notFound: 2,
        deletedIdentifiers: [],
        notFoundIdentifiers: [leads[0]!.phoneNumber, leads[1]!.externalId],
      });
    });

    it('an invalid entry anywhere fails the request with leads[N]: … and nothing is deleted', async () => {
      const c = f.ids.campaignA;
      const existing = phoneLeads(3);
      await seed(f, c, existing);
      const before = await countLeads(f, c);
      const named = existing.map((l) => ({ phoneNumber: l.phoneNumber }));
      expectError(
        await bulkDelete({ campaignId: c, leads: [...named, {}] }),
        400,
        'leads[3]: At least one of phoneNumber or externalId is required',
      );
      expectError(
        await bulkDelete({ campaignId: c, leads: [{ metadata: {} }, ...named] }),
        400,
        'leads[0]: At least one of phoneNumber or externalId is required',
      );
      for (const [leads, field, index] of [
        [[...named, { phoneNumber: '4155550100' }, {}], 'phoneNumber', 3],
        [[named[0], { externalId: '' }], 'externalId', 1],
        [[named[0], named[1], { externalId: 'x'.repeat(256) }], 'externalId', 2],
        [[named[0], { externalId: 'nul\u0000' }], 'externalId', 1],
        [[named[0], 'x'], '', 1],
        [[named[0], named[1], null], '', 2],
      ] as const) {
        const res = await bulkDelete({ campaignId: c, leads });
        expect(res.status).toBe(400);
        expect(res.body).toEqual({ success: false, data: null, error: expect.any(String) });
        expect(res.body.error.startsWith(`leads[${index}]: `), res.body.error).toBe(true);
        expect(res.body.error).toContain(field);
      }
      // index 999 of a full request
      const many: object[] = [...named, ...Array.from({ length: 996 }, () => ({ phoneNumber: phone() }))];
      many.push({ phoneNumber: '+1' });
      expect(many).toHaveLength(1000);
      const last = await bulkDelete({ campaignId: c, leads: many });
      expect(last.status).toBe(400);
      expect(last.body.error).toMatch(/^leads\[999\]: .*phoneNumber/);
      expect(await countLeads(f, c)).toBe(before);
    });

    it('1000 entries are accepted; 1001 is Maximum 1000 leads per bulk delete request and deletes nothing', async () => {
      const c = f.ids.campaignA2;
      const leads = phoneLeads(1000);
      await seed(f, c, leads);
      const before = await countLeads(f, c);
      expectError(
        await bulkDelete({ campaignId: c, leads: [...leads, { phoneNumber: phone() }] }),
        400,
        'Maximum 1000 leads per bulk delete request',
      );
      expect(await countLeads(f, c)).toBe(before);
      const data = ok(await bulkDelete({ campaignId: c, leads }));
      expect(data.deleted).toBe(1000);
      expect(data.deletedIdentifiers).toEqual(leads.map((l) => l.phoneNumber));
      expect(await countLeads(f, c)).toBe(before - 1000);
    });

    it('leads missing, not an array, or empty; campaignId missing', async () => {
      const c = f.ids.campaignA;
      expectError(await bulkDelete({ campaignId: c }), 400, 'leads array is required');
      for (const leads of ['x', {}, null, 3]) expectError(await bulkDelete({ campaignId: c, leads }), 400, 'leads array is required');
      expectError(await bulkDelete({ campaignId: c, leads: [] }), 400, 'leads array cannot be empty');
      expectError(await bulkDelete({ leads: [{ phoneNumber: phone() }] }), 400, 'campaignId is required');
      expectError(await bulkDelete({ campaignId: '', leads: [{ phoneNumber: phone() }] }), 400, 'campaignId is required');
      expectFieldError(await bulkDelete({ campaignId: 12, leads: [{ phoneNumber: phone() }] }), 'campaignId');
    });

    it('read key: 403 Insufficient permissions; restricted key on another campaign, other company, no such campaign: 403 Forbidden', async () => {
      const p = phone();
      const [id] = await seed(f, f.ids.campaignA2, [{ phoneNumber: p }]);
      const body = (campaignId: string) => ({ campaignId, leads: [{ phoneNumber: p }] });
      expectError(await bulkDelete(body(f.ids.campaignA2), f.keys.readA), 403, 'Insufficient permissions');
      expectError(await bulkDelete(body(f.ids.campaignA2), f.keys.restrictedA), 403, 'Forbidden');
      expectError(await bulkDelete(body(f.ids.campaignA2), f.keys.writeB), 403, 'Forbidden');
      expectError(await bulkDelete(body('cp_missing')), 403, 'Forbidden');
      expect(await ids(f.ids.campaignA2)).toContain(id);
    });
  });
});
