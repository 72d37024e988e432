/** The leads table's first, previous and next page (app.inject, each store): a keyset cursor walked both ways. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCampaign } from '../../src/campaigns/service.js';
import { seed } from '../api/support.js';
import { availableStores } from '../helpers/db.js';
import { type Fixture, makeFixture } from '../helpers/fixture.js';
import { type Browser, signedInUser } from './support.js';

const phones = (body: string) => [...body.matchAll(/class="mono">(\+1212555\d{4})<\/a>/g)].map((m) => m[1]);
const link = (body: string, rel: string) => {
  const m = new RegExp(`rel="${rel}" href="([^"]+)"`).exec(body);
  return m ? m[1]!.replace(/&amp;/g, '&') : null;
};

describe.each(await availableStores())('leads pages on %s', (kind) => {
  let f: Fixture;
  let a: Browser;
  let campaignId: string;
  beforeAll(async () => {
    f = await makeFixture(kind);
    a = await signedInUser(f.app, f.db, f.ids.companyA, 'pages@a.test');
    ({ campaignId } = await createCampaign(f.db, { companyId: f.ids.companyA, name: 'Paged' }));
    await seed(
      f,
      campaignId,
      Array.from({ length: 120 }, (_, i) => ({ phoneNumber: `+1212555${String(1000 + i)}` })),
    );
  });
  afterAll(() => f.close());
  const expected = (from: number, n: number) => Array.from({ length: n }, (_, i) => `+1212555${1000 + from + i}`);

  it('walks forward with Next and back with Previous, and First returns to the start', async () => {
    const first = await a.get(`/dashboard/campaigns/${campaignId}/leads`);
    expect(phones(first.body)).toEqual(expected(0, 50));
    expect(link(first.body, 'prev')).toBeNull();
    expect(first.body).not.toContain('First page');

    const second = await a.get(link(first.body, 'next')!);
    expect(phones(second.body)).toEqual(expected(50, 50));
    expect(link(second.body, 'prev')).toBe(`/dashboard/campaigns/${campaignId}/leads`);

    const third = await a.get(link(second.body, 'next')!);
    expect(phones(third.body)).toEqual(expected(100, 20));
    expect(link(third.body, 'next')).toBeNull();
    expect(third.body).toContain('First page');

    const back = await a.get(link(third.body, 'prev')!);
    expect(phones(back.body)).toEqual(expected(50, 50));
    const start = await a.get(link(back.body, 'prev')!);
    expect(phones(start.body)).toEqual(expected(0, 50));
  });

  it('pages within a status filter, both ways', async () => {
    const ids = await f.db.kysely.selectFrom('leads').select('id').where('campaign_id', '=', campaignId).orderBy('seq').execute();
    // every other lead is exhausted: 60 of them, a page of 50 and one of 10
    await f.db.kysely
      .updateTable('leads')
      .set({ status: 'exhausted' })
      .where(
        'id',
        'in',
        ids.filter((_, i) => i % 2 === 0).map((r) => r.id),
      )
      .execute();
    const even = Array.from({ length: 60 }, (_, i) => `+1212555${1000 + 2 * i}`);
    const first = await a.get(`/dashboard/campaigns/${campaignId}/leads?status=exhausted`);
    expect(phones(first.body)).toEqual(even.slice(0, 50));
    const second = await a.get(link(first.body, 'next')!);
    expect(phones(second.body)).toEqual(even.slice(50));
    expect(link(second.body, 'prev')).toBe(`/dashboard/campaigns/${campaignId}/leads?status=exhausted`);
    expect(phones((await a.get(link(second.body, 'prev')!)).body)).toEqual(even.slice(0, 50));
  });
});
