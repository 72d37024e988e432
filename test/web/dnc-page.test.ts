/**
 * Company settings → Do-not-call list over app.inject on each store: adding
 * (source dashboard, one dnc.added event, as through the API), refusing bad
 * input with nothing written, looking a number up, removing after a
 * confirmation, the list a page at a time, and nothing of another company's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableStores } from '../helpers/db.js';
import { type Fixture, makeFixture } from '../helpers/fixture.js';
import { type Browser, signedInUser } from './support.js';

const PAGE = '/dashboard/settings/dnc';

describe.each(await availableStores())('dashboard do-not-call list on %s', (kind) => {
  let f: Fixture;
  let a: Browser;
  let b: Browser;
  beforeAll(async () => {
    f = await makeFixture(kind);
    a = await signedInUser(f.app, f.db, f.ids.companyA, 'dnc-a@example.com');
    b = await signedInUser(f.app, f.db, f.ids.companyB, 'dnc-b@example.com', '10.0.0.2');
  });
  afterAll(() => f.close());
  const listed = (companyId: string) => f.db.kysely.selectFrom('dnc').selectAll().where('company_id', '=', companyId).execute();

  it('is linked from the company settings tabs', async () => {
    const keys = await a.get('/dashboard/settings/keys');
    expect(keys.body).toContain(`<a href="${PAGE}">Do-not-call list</a>`);
    const page = await a.get(PAGE);
    expect(page.status).toBe(200);
    expect(page.body).toContain(`<a href="${PAGE}" aria-current="page">Do-not-call list</a>`);
    expect(page.body).toContain('No numbers are listed.');
  });

  it('adds numbers with source dashboard and one dnc.added event, as the API does', async () => {
    const before = await f.db.events.lastId();
    await a.get(PAGE);
    const added = await a.post(PAGE, { numbers: '+14155550100, +14155550101\n +14155550102\n\n+14155550100', reason: ' asked by email ' });
    expect(added.status).toBe(303);
    expect(added.location).toBe(`${PAGE}?added=3&already=0`);
    expect((await a.get(added.location!)).body).toContain('3 numbers were added to the list.');
    const rows = await listed(f.ids.companyA);
    expect(rows.map((r) => [r.phone_number, r.source, r.reason])).toEqual([
      ['+14155550100', 'dashboard', 'asked by email'],
      ['+14155550101', 'dashboard', 'asked by email'],
      ['+14155550102', 'dashboard', 'asked by email'],
    ]);
    const again = await a.post(PAGE, { numbers: '+14155550102\n+14155550103', reason: '' });
    expect(again.location).toBe(`${PAGE}?added=1&already=1`);
    expect((await a.get(again.location!)).body).toContain('1 number was added to the list; 1 was already listed and kept its first entry.');
    expect((await f.db.dnc.get(f.ids.companyA, '+14155550103'))?.reason).toBeNull();
    const events = await f.db.events.after(before, ['dnc.added'], 10);
    expect(events.map((e) => [e.company_id, e.campaign_id, JSON.parse(e.items)])).toEqual([
      [
        f.ids.companyA,
        null,
        ['+14155550100', '+14155550101', '+14155550102'].map((phoneNumber) => ({
          phoneNumber,
          source: 'dashboard',
          reason: 'asked by email',
        })),
      ],
      [f.ids.companyA, null, [{ phoneNumber: '+14155550103', source: 'dashboard', reason: null }]],
    ]);
  });

  it('refuses bad input field by field and writes nothing', async () => {
    const rowsBefore = await listed(f.ids.companyA);
    const eventsBefore = await f.db.events.lastId();
    await a.get(PAGE);
    const bad = await a.post(PAGE, { numbers: '+14155550190\n0044 20 7946\n<b>x</b>', reason: 'r' });
    expect(bad.status).toBe(400);
    expect(bad.body).toContain('Not in E.164 format');
    expect(bad.body).toContain('&quot;0044 20 7946&quot;, &quot;&lt;b&gt;x&lt;/b&gt;&quot;');
    expect(bad.body).not.toContain('<b>x</b>');
    expect(bad.body).toMatch(/id="f-numbers" name="numbers"[^>]*aria-invalid="true" aria-describedby="e-numbers" autofocus/);
    expect(bad.body).toContain('value="r"'); // what was typed is kept
    const long = await a.post(PAGE, { numbers: '+14155550191', reason: 'x'.repeat(501) });
    expect(long.status).toBe(400);
    expect(long.body).toContain('The reason may be at most 500 characters.');
    expect(long.body).toMatch(/id="f-reason"[^>]*aria-invalid="true"/);
    const nul = await a.post(PAGE, { numbers: '+14155550192', reason: 'a\u0000b' });
    expect(nul.status).toBe(400);
    expect(nul.body).toContain('The reason holds a character that cannot be stored.');
    const both = await a.post(PAGE, { numbers: ' , ', reason: 'y'.repeat(501) });
    expect(both.status).toBe(400);
    expect(both.body).toContain('Give at least one number.');
    expect(both.body).toContain('The reason may be at most 500 characters.');
    const many = Array.from({ length: 1001 }, (_, i) => `+1415556${String(i).padStart(4, '0')}`).join('\n');
    const tooMany = await a.post(PAGE, { numbers: many });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body).toContain('At most 1000 numbers at a time.');
    expect(await listed(f.ids.companyA)).toEqual(rowsBefore);
    expect(await f.db.events.lastId()).toEqual(eventsBefore);
  });

  it('looks a number up: listed with its entry, or not listed', async () => {
    const hit = await a.get(`${PAGE}?phoneNumber=%2B14155550100`);
    expect(hit.status).toBe(200);
    expect(hit.body).toMatch(/<span class="mono">\+14155550100<\/span> <span class="badge listed">listed<\/span>/);
    expect(hit.body).toMatch(/<dt>Source<\/dt><dd>dashboard<\/dd>/);
    expect(hit.body).toContain('<dd>asked by email</dd>');
    // a "+" left unencoded arrives as a space, and is read as the plus it was
    expect((await a.get(`${PAGE}?phoneNumber=+14155550101`)).body).toContain('<span class="badge listed">listed</span>');
    const miss = await a.get(`${PAGE}?phoneNumber=%2B14155550199`);
    expect(miss.body).toContain('<span class="mono">+14155550199</span> is <strong>not listed</strong>');
    const bad = await a.get(`${PAGE}?phoneNumber=4155550100x`);
    expect(bad.status).toBe(400);
    expect(bad.body).toMatch(/id="f-phoneNumber"[^>]*aria-invalid="true"/);
  });

  it('lists 50 numbers a page, in number order, with the next page behind a cursor', async () => {
    await a.get(PAGE);
    const numbers = Array.from({ length: 60 }, (_, i) => `+1212555${String(i).padStart(4, '0')}`);
    expect((await a.post(PAGE, { numbers: numbers.join('\n') })).location).toBe(`${PAGE}?added=60&already=0`);
    const all = (await listed(f.ids.companyA)).map((r) => r.phone_number).sort();
    expect(all).toHaveLength(64);
    const first = await a.get(PAGE);
    expect(first.body).toContain('64 numbers are listed.');
    const shown = (body: string) => [...body.matchAll(/<td data-label="Number" class="mono">([^<]+)<\/td>/g)].map((m) => m[1]);
    expect(shown(first.body)).toEqual(all.slice(0, 50));
    expect(first.body).not.toContain('First page');
    const next = /href="(\/dashboard\/settings\/dnc\?cursor=[^"]+)">Next page/.exec(first.body)![1]!;
    const second = await a.get(next.replaceAll('&amp;', '&'));
    expect(shown(second.body)).toEqual(all.slice(50));
    expect(second.body).toContain('First page');
    expect(second.body).not.toContain('Next page');
    expect((await a.get(`${PAGE}?cursor=forged`)).status).toBe(400);
  });

  it('removes a number after a confirmation, and several from the form', async () => {
    const confirm = await a.get(`${PAGE}/remove?phoneNumber=%2B14155550100`);
    expect(confirm.status).toBe(200);
    expect(confirm.body).toContain('<strong class="mono">+14155550100</strong> off the list?');
    expect(await f.db.dnc.get(f.ids.companyA, '+14155550100')).toBeDefined(); // asking changes nothing
    const removed = await a.post(`${PAGE}/remove`, { numbers: '+14155550100', confirmed: 'yes' });
    expect(removed.location).toBe(`${PAGE}?removed=1&notListed=0`);
    expect(await f.db.dnc.get(f.ids.companyA, '+14155550100')).toBeUndefined();

    await a.get(PAGE);
    const asked = await a.post(`${PAGE}/remove`, { numbers: '+14155550101,+14155550102\n+14155550177' });
    expect(asked.status).toBe(200);
    expect(asked.body).toContain('these 3 numbers');
    expect(asked.body).toContain('name="numbers" value="+14155550101,+14155550102,+14155550177"');
    expect(await f.db.dnc.get(f.ids.companyA, '+14155550101')).toBeDefined();
    const done = await a.post(`${PAGE}/remove`, { numbers: '+14155550101\n+14155550102\n+14155550177', confirmed: 'yes' });
    expect(done.location).toBe(`${PAGE}?removed=2&notListed=1`);
    expect((await a.get(done.location!)).body).toContain('2 numbers were taken off the list; 1 was not listed.');
    expect(await f.db.dnc.get(f.ids.companyA, '+14155550102')).toBeUndefined();

    const bad = await a.post(`${PAGE}/remove`, { numbers: '+14155550103\nnope', confirmed: 'yes' });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatch(/id="f-remove" name="numbers"[^>]*aria-invalid="true"/);
    expect(await f.db.dnc.get(f.ids.companyA, '+14155550103')).toBeDefined();
    expect((await a.get(`${PAGE}/remove?phoneNumber=nope`)).status).toBe(400);
  });

  it("shows company B nothing of company A's list, and B's removals leave A's entries", async () => {
    const page = await b.get(PAGE);
    expect(page.body).toContain('No numbers are listed.');
    expect(page.body).not.toContain('+14155550103');
    expect((await b.get(`${PAGE}?phoneNumber=%2B14155550103`)).body).toContain('is <strong>not listed</strong>');
    const removed = await b.post(`${PAGE}/remove`, { numbers: '+14155550103', confirmed: 'yes' });
    expect(removed.location).toBe(`${PAGE}?removed=0&notListed=1`);
    expect(await f.db.dnc.get(f.ids.companyA, '+14155550103')).toBeDefined();
    // B listing the same number is B's entry alone
    expect((await b.post(PAGE, { numbers: '+14155550103' })).location).toBe(`${PAGE}?added=1&already=0`);
    expect((await listed(f.ids.companyB)).map((r) => r.phone_number)).toEqual(['+14155550103']);
    expect((await a.get(`${PAGE}?phoneNumber=%2B14155550103`)).body).toContain('<dd>dashboard</dd>');
  });

  it('refuses posts without the form token, or sent from another site, and writes nothing', async () => {
    const before = await listed(f.ids.companyA);
    const noToken = await a.request('POST', PAGE, { form: { numbers: '+14155550150' } });
    expect(noToken.status).toBe(403);
    const crossSite = await a.post(PAGE, { numbers: '+14155550150' }, { 'sec-fetch-site': 'cross-site' });
    expect(crossSite.status).toBe(403);
    const removeNoToken = await a.request('POST', `${PAGE}/remove`, { form: { numbers: '+14155550103', confirmed: 'yes' } });
    expect(removeNoToken.status).toBe(403);
    expect(await listed(f.ids.companyA)).toEqual(before);
  });
});
