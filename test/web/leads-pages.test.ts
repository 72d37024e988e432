/** The leads table (app.inject, each store): first, previous and next page, a keyset cursor walked both ways; the search. */
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

  it('searches by the start or the end of a number, up to a page, saying when more match', async () => {
    const end = await a.get(`/dashboard/campaigns/${campaignId}/leads?q=${encodeURIComponent(' 1119 ')}`);
    expect(phones(end.body)).toEqual(['+12125551119']);
    expect(end.body).toContain('starts or ends with “1119”');
    const start = await a.get(`/dashboard/campaigns/${campaignId}/leads?q=${encodeURIComponent('+1212555101')}`);
    expect(phones(start.body)).toEqual(expected(10, 10));
    expect(start.body).not.toContain('leads match;');
    const many = await a.get(`/dashboard/campaigns/${campaignId}/leads?q=${encodeURIComponent('+1212')}`);
    expect(phones(many.body)).toEqual(expected(0, 50));
    expect(many.body).toContain('More than 50 leads match; 50 are shown.');
    expect(link(many.body, 'next')).toBeNull();
    const none = await a.get(`/dashboard/campaigns/${campaignId}/leads?q=9999`);
    expect(none.body).toContain('No phone number or external id starts or ends with that.');
  });

  it('refuses a search no identifier could match, saying why', async () => {
    const long = await a.get(`/dashboard/campaigns/${campaignId}/leads?q=${'x'.repeat(256)}`);
    expect(long.status).toBe(400);
    expect(long.body).toContain('at most 255 characters');
    const nul = await a.get(`/dashboard/campaigns/${campaignId}/leads?q=a%00b`);
    expect(nul.status).toBe(400);
    expect((await a.get(`/dashboard/campaigns/${campaignId}/leads?q=${'x'.repeat(255)}`)).status).toBe(200);
  });

  it("does not search another company's campaign", async () => {
    const b = await signedInUser(f.app, f.db, f.ids.companyB, 'pages@b.test');
    const res = await b.get(`/dashboard/campaigns/${campaignId}/leads?q=%2B1212`);
    expect(res.status).toBe(404);
    expect(res.body).not.toContain('+1212555');
  });

  it('shows Next up: the leads in the order the dialer takes them, changing nothing', async () => {
    const before = await f.db.kysely.selectFrom('leads').selectAll().orderBy('seq').execute();
    const res = await a.get(`/dashboard/campaigns/${campaignId}/next-up`);
    expect(res.status).toBe(200);
    // one priority, no schedule: creation order
    expect(phones(res.body)).toEqual(expected(0, 50));
    expect(res.body).toMatch(/called now|held back/);
    expect(await f.db.kysely.selectFrom('leads').selectAll().orderBy('seq').execute()).toEqual(before);
    const b = await signedInUser(f.app, f.db, f.ids.companyB, 'next@b.test');
    expect((await b.get(`/dashboard/campaigns/${campaignId}/next-up`)).status).toBe(404);
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
