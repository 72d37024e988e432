/**
 * Hostile inputs the fuzz found, pinned as plain examples so that they fail
 * every time, not just when the fuzz happens to draw them again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, ok, PREFIXES } from '../api/support.js';
import { availableStores } from '../helpers/db.js';
import { type Fixture, makeFixture } from '../helpers/fixture.js';

const nested = (levels: number) => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);

describe.each(await availableStores())('hostile-input regressions on %s', (kind) => {
  let f: Fixture;
  beforeAll(async () => {
    f = await makeFixture(kind);
  });
  afterAll(() => f?.close());

  describe.each(PREFIXES)('%s', (prefix) => {
    it('metadata nested 100,000 deep is a 400 naming the depth limit, refused before it is parsed', async () => {
      const headers = { 'content-type': 'application/json' };
      const create = await f.request('POST', prefix, {
        headers,
        body: `{"campaignId":"${f.ids.campaignA}","phoneNumber":"+14155551001","metadata":${nested(100_000)}}`,
      });
      expectError(create, 400, 'Request body is nested deeper than 64 levels of arrays and objects');
      const bulk = await f.request('POST', `${prefix}/bulk`, {
        headers,
        body: `{"campaignId":"${f.ids.campaignA}","leads":[{"phoneNumber":"+14155551002","metadata":${nested(100_000)}}]}`,
      });
      expectError(bulk, 400, 'Request body is nested deeper than 64 levels of arrays and objects');
      // within the depth limit, oversized metadata is still named as such
      const wide = await f.request('POST', prefix, {
        headers,
        body: `{"campaignId":"${f.ids.campaignA}","phoneNumber":"+14155551001","metadata":${nested(60)}}`.replace(
          '1}',
          `"${'x'.repeat(17_000)}"}`,
        ),
      });
      expectError(wide, 400, 'metadata must be a JSON object of at most 16 KiB, its numbers within ±1.8e308');
    });

    it('a URL that cannot be percent-decoded: 400 envelope that does not echo the path', async () => {
      for (const path of [`${prefix}/%FF`, `${prefix}/bulk/%E0%A4%A`, `${prefix}/%ED%A0%80`]) {
        const res = await f.request('GET', path);
        expect(res.status, path).toBe(400);
        expect(res.body).toEqual({ success: false, data: null, error: expect.any(String) });
        expect(res.body.error).not.toContain('%');
      }
    });

    it('DELETE with Content-Type: application/json and no body deletes, as the spec has clients send it', async () => {
      const phoneNumber = prefix.endsWith('leads') ? '+14155551003' : '+14155551004';
      ok(await f.request('POST', prefix, { body: { campaignId: f.ids.campaignA, phoneNumber } }), 201);
      const res = await f.request('DELETE', prefix, {
        query: { campaignId: f.ids.campaignA, phoneNumber },
        headers: { 'content-type': 'application/json' },
      });
      expect(ok(res)).toEqual({ deleted: true });
      // a body that is there must still be JSON
      const bad = await f.request('DELETE', prefix, {
        query: { campaignId: f.ids.campaignA, phoneNumber },
        headers: { 'content-type': 'application/json' },
        body: '{nope',
      });
      expect(bad.status).toBe(400);
    });
  });
});
