/**
 * DELETE /api/v1/leads (and /records): one lead by externalId or phoneNumber.
 * docs/api.md "Endpoints".
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableStores } from '../helpers/db.js';
import { type Fixture, makeFixture } from '../helpers/fixture.js';
import { expectError, expectFieldError, expectRateHeaders, ext, listAll, ok, phone, PREFIXES } from './support.js';

describe.each(await availableStores())('delete one lead on %s', (kind) => {
  let f: Fixture;
  beforeAll(async () => {
    f = await makeFixture(kind);
  });
  afterAll(() => f.close());

  const make = async (campaignId: string, body: object, key?: string) =>
    ok(await f.request('POST', '/api/v1/leads', { key, body: { campaignId, ...body } }), 201).leadId as string;
  const ids = async (campaignId: string, key?: string) => (await listAll(f, campaignId, key)).map((l) => l._id as string);

  describe.each(PREFIXES)('%s', (prefix) => {
    it('by externalId: 200 {deleted:true} and nothing else', async () => {
      const e = ext();
      const id = await make(f.ids.campaignA, { phoneNumber: phone(), externalId: e, metadata: { secret: 'do not echo' } });
      const res = await f.request('DELETE', prefix, { query: { campaignId: f.ids.campaignA, externalId: e } });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true, data: { deleted: true }, error: null });
      expect(JSON.stringify(res.body)).not.toContain('do not echo');
      expectRateHeaders(res);
      expect(await ids(f.ids.campaignA)).not.toContain(id);
    });

    it('by phoneNumber sent as %2B…', async () => {
      const p = phone();
      const id = await make(f.ids.campaignA, { phoneNumber: p });
      const url = `${prefix}?campaignId=${f.ids.campaignA}&phoneNumber=${encodeURIComponent(p)}`;
      expect(url).toContain('%2B');
      const res = await f.request('DELETE', url);
      expect(res.body).toEqual({ success: true, data: { deleted: true }, error: null });
      expect(await ids(f.ids.campaignA)).not.toContain(id);
    });

    it('by phoneNumber with a raw, unencoded + in the URL (restored by the server)', async () => {
      const p = phone();
      const id = await make(f.ids.campaignA, { phoneNumber: p });
      const res = await f.request('DELETE', `${prefix}?campaignId=${f.ids.campaignA}&phoneNumber=${p}`);
      expect(res.body).toEqual({ success: true, data: { deleted: true }, error: null });
      expect(await ids(f.ids.campaignA)).not.toContain(id);
    });

    it('by a prefetch lead externalId', async () => {
      const e = ext('pf');
      const id = await make(f.ids.prefetchA, { externalId: e });
      ok(await f.request('DELETE', prefix, { query: { campaignId: f.ids.prefetchA, externalId: e } }));
      expect(await ids(f.ids.prefetchA)).not.toContain(id);
    });

    it('externalId takes priority: with the phone of another lead, only the externalId lead is deleted', async () => {
      const [e1, p1, p2] = [ext(), phone(), phone()];
      const first = await make(f.ids.campaignA, { externalId: e1, phoneNumber: p1 });
      const second = await make(f.ids.campaignA, { externalId: ext(), phoneNumber: p2 });
      ok(await f.request('DELETE', prefix, { query: { campaignId: f.ids.campaignA, externalId: e1, phoneNumber: p2 } }));
      const left = await ids(f.ids.campaignA);
      expect(left).not.toContain(first);
      expect(left).toContain(second);
      // an unknown externalId with a known phone: the lookup is by externalId, so nothing is deleted
      expectError(
        await f.request('DELETE', prefix, { query: { campaignId: f.ids.campaignA, externalId: 'no-such-id', phoneNumber: p2 } }),
        404,
        'Lead not found',
      );
      expect(await ids(f.ids.campaignA)).toContain(second);
    });

    it('Lead not found: unknown identifiers, a second delete, and a lead of another campaign', async () => {
      const c = f.ids.campaignA;
      expectError(await f.request('DELETE', prefix, { query: { campaignId: c, externalId: 'never-existed' } }), 404, 'Lead not found');
      expectError(await f.request('DELETE', prefix, { query: { campaignId: c, phoneNumber: '+19999999999' } }), 404, 'Lead not found');
      const e = ext();
      await make(c, { externalId: e, phoneNumber: phone() });
      ok(await f.request('DELETE', prefix, { query: { campaignId: c, externalId: e } }));
      expectError(await f.request('DELETE', prefix, { query: { campaignId: c, externalId: e } }), 404, 'Lead not found');
      // a lead in campaignA2 is not found through campaignA, and survives
      const p = phone();
      const other = await make(f.ids.campaignA2, { phoneNumber: p });
      expectError(await f.request('DELETE', prefix, { query: { campaignId: c, phoneNumber: p } }), 404, 'Lead not found');
      expect(await ids(f.ids.campaignA2)).toContain(other);
    });

    it('campaignId query parameter is required', async () => {
      expectError(await f.request('DELETE', prefix, { query: { externalId: 'x' } }), 400, 'campaignId query parameter is required');
      expectError(
        await f.request('DELETE', prefix, { query: { campaignId: '', phoneNumber: '+14155550100' } }),
        400,
        'campaignId query parameter is required',
      );
      // nothing at all: both spec messages are true; either is accepted (the server currently names the identifiers)
      const bare = await f.request('DELETE', prefix);
      expect(bare.status).toBe(400);
      expect(bare.body).toEqual({ success: false, data: null, error: expect.any(String) });
      expect(['campaignId query parameter is required', 'At least one of phoneNumber or externalId query parameter is required']).toContain(
        bare.body.error,
      );
    });

    it('At least one of phoneNumber or externalId query parameter is required', async () => {
      expectError(
        await f.request('DELETE', prefix, { query: { campaignId: f.ids.campaignA } }),
        400,
        'At least one of phoneNumber or externalId query parameter is required',
      );
    });

    it('an invalid identifier is a 400 naming it', async () => {
      expectFieldError(
        await f.request('DELETE', prefix, { query: { campaignId: f.ids.campaignA, phoneNumber: '14155550100' } }),
        'phoneNumber',
      );
      expectFieldError(await f.request('DELETE', prefix, { query: { campaignId: f.ids.campaignA, phoneNumber: '+0123' } }), 'phoneNumber');
      expectFieldError(await f.request('DELETE', prefix, { query: { campaignId: f.ids.campaignA, externalId: '' } }), 'externalId');
      expectFieldError(await f.request('DELETE', `${prefix}?campaignId=${f.ids.campaignA}&externalId=a%00b`), 'externalId');
      expectFieldError(await f.request('DELETE', `${prefix}?campaignId=${f.ids.campaignA}%00&externalId=ab`), 'campaignId');
      expectFieldError(
        await f.request('DELETE', prefix, { query: { campaignId: f.ids.campaignA, externalId: 'x'.repeat(256) } }),
        'externalId',
      );
    });

    it('a read key: 403 Insufficient permissions; a foreign campaign: 403 Forbidden; the lead survives', async () => {
      const p = phone();
      const id = await make(f.ids.campaignA, { phoneNumber: p });
      expectError(
        await f.request('DELETE', prefix, { key: f.keys.readA, query: { campaignId: f.ids.campaignA, phoneNumber: p } }),
        403,
        'Insufficient permissions',
      );
      expectError(
        await f.request('DELETE', prefix, { key: f.keys.writeB, query: { campaignId: f.ids.campaignA, phoneNumber: p } }),
        403,
        'Forbidden',
      );
      expectError(await f.request('DELETE', prefix, { query: { campaignId: 'cp_nope', phoneNumber: p } }), 403, 'Forbidden');
      expect(await ids(f.ids.campaignA)).toContain(id);
    });
  });
});
