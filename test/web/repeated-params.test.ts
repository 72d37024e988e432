/**
 * A query parameter given twice (?phoneNumber=a&phoneNumber=b) reaches a
 * route as an array; the do-not-call pages called string methods on it and
 * answered 500. query() (src/web/routes/support.ts) now gives one string a
 * parameter, a repeated one as its values joined by commas, so each page
 * refuses or ignores it as it does any value it cannot use: the lookup is
 * "Not in E.164 format", a cursor is not one, a status filter is none.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableStores } from '../helpers/db.js';
import { type Fixture, makeFixture } from '../helpers/fixture.js';
import { type Browser, signedInUser } from './support.js';

describe.each(await availableStores())('dashboard pages given a query parameter twice on %s', (kind) => {
  let f: Fixture;
  let a: Browser;
  beforeAll(async () => {
    f = await makeFixture(kind);
    a = await signedInUser(f.app, f.db, f.ids.companyA, 'twice@example.com');
  });
  afterAll(() => f.close());

  const twice = (name: string, one: string, two: string) => `${name}=${encodeURIComponent(one)}&${name}=${encodeURIComponent(two)}`;

  it('a do-not-call lookup or removal of two numbers is refused as not in E.164 format (400), not a 500', async () => {
    const numbers = twice('phoneNumber', '+14155550001', '+14155550002');
    for (const url of [`/dashboard/settings/dnc?${numbers}`, `/dashboard/settings/dnc/remove?${numbers}`]) {
      const res = await a.get(url);
      expect(res.status, url).toBe(400);
      expect(res.body, url).toContain('Not in E.164 format');
    }
    // the lookup keeps what was asked for in its field, as for any refused number
    expect((await a.get(`/dashboard/settings/dnc?${numbers}`)).body).toContain('value="+14155550001,+14155550002"');
  });

  it('a repeated cursor, status or search is no cursor, no filter, a search for both: never a 500', async () => {
    const leads = `/dashboard/campaigns/${f.ids.campaignA}/leads`;
    expect((await a.get(`${leads}?${twice('cursor', 'x', 'y')}`)).status).toBe(200);
    expect((await a.get(`${leads}?${twice('status', 'raw', 'raw')}`)).status).toBe(200);
    expect((await a.get(`${leads}?${twice('q', '+1415', '0001')}`)).status).toBe(200);
    expect((await a.get(`/dashboard/?${twice('refresh', '5', '10')}`)).status).toBe(200);
    expect((await a.get(`/dashboard/settings/dnc?${twice('cursor', 'x', 'y')}`)).status).toBe(400);
  });

  it('single parameters work as before', async () => {
    await a.get('/dashboard/settings/dnc');
    await a.post('/dashboard/settings/dnc', { numbers: '+14155550001' });
    const found = await a.get('/dashboard/settings/dnc?phoneNumber=%2B14155550001');
    expect(found.status).toBe(200);
    expect(found.body).toContain('+14155550001');
    expect((await a.get('/dashboard/settings/dnc/remove?phoneNumber=%2B14155550001')).status).toBe(200);
    expect((await a.get(`/dashboard/campaigns/${f.ids.campaignA}/leads?status=raw`)).status).toBe(200);
  });
});
