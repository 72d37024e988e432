/**
 * The do-not-call list's page cursor (GET /api/v1/dnc?limit=&cursor=) was
 * base64url("d1." + the last number): the next page's URL, which the request
 * log keeps as it is, carried a phone number anyone could decode, and anyone
 * could write a cursor for any position. It is now one encrypted block bound
 * to the company (src/compliance/dnc.ts). Found by following
 * docs/compliance.md as a newcomer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loggableUrl } from '../../src/logger.js';
import { availableStores } from '../helpers/db.js';
import { type Fixture, makeFixture } from '../helpers/fixture.js';

describe.each(await availableStores())('the do-not-call page cursor on %s', (kind) => {
  let f: Fixture;
  beforeAll(async () => {
    f = await makeFixture(kind);
    const add = await f.request('POST', '/api/v1/dnc', { body: { phoneNumbers: ['+14155550123', '+14155550124', '+442071838750'] } });
    expect(add.status).toBe(200);
  });
  afterAll(() => f.close());

  const page = (cursor?: string, key?: string) =>
    f.request('GET', '/api/v1/dnc', { query: { limit: '1', ...(cursor === undefined ? {} : { cursor }) }, ...(key ? { key } : {}) });

  it('carries no phone number, so the next page URL is logged without one', async () => {
    const first = await page();
    expect(first.status).toBe(200);
    const cursor: string = first.body.data.cursor;
    const logged = loggableUrl(`/api/v1/dnc?limit=1&cursor=${cursor}`);
    const values = new URL(`http://x${logged}`).searchParams;
    const decoded = [...values.values()].map((v) => Buffer.from(v, 'base64url').toString('latin1')).join(' ');
    expect(decoded).not.toContain('4155550123');
  });

  it('walks the list in number order, one page at a time, to the end', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let i = 0; i < 5; i++) {
      const res = await page(cursor);
      expect(res.status).toBe(200);
      seen.push(...res.body.data.entries.map((e: { phoneNumber: string }) => e.phoneNumber));
      cursor = res.body.data.cursor;
      if (!res.body.data.hasMore) break;
    }
    expect(seen).toEqual(['+14155550123', '+14155550124', '+442071838750']);
    // kept after the last page, it returns nothing more
    expect((await page(cursor)).body.data).toMatchObject({ entries: [], count: 0, hasMore: false, cursor });
  });

  it("refuses a cursor leadline did not write, the readable form of before included, and another company's", async () => {
    const forged = Buffer.from('d1.+14155550000').toString('base64url');
    for (const cursor of [forged, 'x'.repeat(22), '']) {
      const res = await page(cursor);
      expect([res.status, res.body.error]).toEqual([400, 'Invalid cursor']);
    }
    const ours: string = (await page()).body.data.cursor;
    const theirs = await page(ours, f.keys.writeB);
    expect([theirs.status, theirs.body.error]).toEqual([400, 'Invalid cursor']);
  });
});
