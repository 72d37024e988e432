/**
 * Company settings → Users over app.inject on each store: adding a user with a
 * one-time password shown once, resetting a password, removing a user, never
 * the company's last one, and nothing of another company's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCompany } from '../../src/campaigns/service.js';
import { availableStores } from '../helpers/db.js';
import { type Fixture, makeFixture } from '../helpers/fixture.js';
import { Browser, signedInUser } from './support.js';

const otp = (body: string) => /<code id="otp-value">([^<]+)<\/code>/.exec(body)![1]!;

describe.each(await availableStores())('dashboard users on %s', (kind) => {
  let f: Fixture;
  let a: Browser;
  beforeAll(async () => {
    f = await makeFixture(kind);
    a = await signedInUser(f.app, f.db, f.ids.companyA, 'owner@a.test');
  });
  afterAll(() => f.close());
  const userId = async (email: string) =>
    (await f.db.kysely.selectFrom('users').select('id').where('email', '=', email).executeTakeFirstOrThrow()).id;

  it('adds a user whose one-time password, shown once, signs them in', async () => {
    const list = await a.get('/dashboard/settings/users');
    expect(list.body).toContain('owner@a.test');
    expect(list.body).toContain('the last user cannot be removed');
    const added = await a.post('/dashboard/settings/users', { email: 'New@A.test' });
    expect(added.status).toBe(200);
    expect(added.headers['cache-control']).toBe('no-store');
    const password = otp(added.body);
    expect(added.body).toContain('new@a.test');
    const again = await a.post('/dashboard/settings/users', { email: 'new@a.test' });
    expect(again.status).toBe(400);
    expect(again.body).toContain('a user with email new@a.test already exists');
    const bad = await a.post('/dashboard/settings/users', { email: 'not an email' });
    expect(bad.status).toBe(400);
    expect(bad.body).toContain('not an email address');

    const newcomer = new Browser(f.app, '10.0.0.9');
    expect((await newcomer.signIn('new@a.test', password)).status).toBe(303);
    expect((await new Browser(f.app, '10.0.0.8').signIn('new@a.test', password)).status).toBe(401); // once only
    expect((await a.get('/dashboard/settings/users')).body).not.toContain(password);
  });

  it('resets a password after a confirmation: the old one and every session stop working', async () => {
    const user = await signedInUser(f.app, f.db, f.ids.companyA, 'reset@a.test', '10.0.0.7');
    const id = await userId('reset@a.test');
    expect((await a.get(`/dashboard/settings/users/${id}/reset`)).body).toContain('signed out everywhere');
    const reset = await a.post(`/dashboard/settings/users/${id}/reset`);
    expect(reset.status).toBe(200);
    const password = otp(reset.body);
    expect((await user.get('/dashboard/')).location).toMatch(/^\/dashboard\/login/);
    expect((await new Browser(f.app, '10.0.0.6').signIn('reset@a.test', password)).status).toBe(303);
  });

  it("removes a user, never the company's last one, and nothing of another company", async () => {
    const removed = await signedInUser(f.app, f.db, f.ids.companyA, 'gone@a.test', '10.0.0.5');
    const id = await userId('gone@a.test');
    expect((await a.get(`/dashboard/settings/users/${id}/remove`)).body).toContain('Remove <strong>gone@a.test</strong>');
    expect((await a.post(`/dashboard/settings/users/${id}/remove`)).location).toBe('/dashboard/settings/users?done=removed');
    expect((await removed.get('/dashboard/')).location).toMatch(/^\/dashboard\/login/);
    expect(await f.db.kysely.selectFrom('users').select('id').where('id', '=', id).executeTakeFirst()).toBeUndefined();

    // company B's only user: company A's user cannot see or touch them
    const b = await signedInUser(f.app, f.db, f.ids.companyB, 'only@b.test', '10.0.0.4');
    const bId = await userId('only@b.test');
    await a.get('/dashboard/settings/users');
    expect((await a.get(`/dashboard/settings/users/${bId}/remove`)).status).toBe(404);
    expect((await a.post(`/dashboard/settings/users/${bId}/remove`)).status).toBe(404);
    expect((await a.post(`/dashboard/settings/users/${bId}/reset`)).status).toBe(404);
    // and B cannot remove themselves, the last user of B
    await b.get('/dashboard/settings/users');
    const last = await b.post(`/dashboard/settings/users/${bId}/remove`);
    expect(last.status).toBe(409);
    expect(last.body).toContain('The last user of a company cannot be removed');
    expect(await f.db.kysely.selectFrom('users').select('id').where('id', '=', bId).executeTakeFirst()).toBeDefined();
  });

  it('two removals at once leave one user', async () => {
    const { companyId } = await createCompany(f.db, 'Pair');
    const one = await signedInUser(f.app, f.db, companyId, 'one@pair.test', '10.0.1.1');
    const two = await signedInUser(f.app, f.db, companyId, 'two@pair.test', '10.0.1.2');
    const [idOne, idTwo] = [await userId('one@pair.test'), await userId('two@pair.test')];
    await Promise.all([one.get('/dashboard/settings/users'), two.get('/dashboard/settings/users')]);
    const results = await Promise.all([
      one.post(`/dashboard/settings/users/${idTwo}/remove`),
      two.post(`/dashboard/settings/users/${idOne}/remove`),
    ]);
    // one removal wins; the other is refused, or finds its own session already ended
    expect(results.filter((r) => r.location === '/dashboard/settings/users?done=removed')).toHaveLength(1);
    const left = await f.db.kysely.selectFrom('users').select('id').where('company_id', '=', companyId).execute();
    expect(left).toHaveLength(1);
  });
});
