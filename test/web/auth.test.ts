/** Dashboard accounts, sessions, CSRF and sign-in rate limits, over app.inject on each store. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryRateLimiter } from '../../src/ratelimit/memory.js';
import { createUser, resetPassword } from '../../src/web/accounts.js';
import { DEFAULT_SIGNIN_LIMITS, SignInLimiter } from '../../src/web/signin-limit.js';
import { availableStores } from '../helpers/db.js';
import { type Fixture, makeFixture } from '../helpers/fixture.js';
import { Browser, PASSWORD, signedInUser } from './support.js';

describe.each(await availableStores())('dashboard sign-in and sessions on %s', (kind) => {
  let f: Fixture;
  beforeAll(async () => {
    f = await makeFixture(kind);
  });
  afterAll(() => f.close());

  it('sends a visitor without a session to the sign-in page, keeping where they were going', async () => {
    const b = new Browser(f.app);
    const res = await b.get('/dashboard/campaigns');
    expect(res.status).toBe(303);
    expect(res.location).toBe('/dashboard/login?next=%2Fdashboard%2Fcampaigns');
    const login = await b.get(res.location!);
    expect(login.status).toBe(200);
    expect(login.body).toContain('name="next" value="/dashboard/campaigns"');
  });

  it('a one-time password signs in once, then the user must choose a password before anything else', async () => {
    const { oneTimePassword } = await createUser(f.db, { companyId: f.ids.companyA, email: 'Ada@Example.com' });
    expect(oneTimePassword).toMatch(/^[a-z2-9]{5}(-[a-z2-9]{5}){3}$/);
    const b = new Browser(f.app);
    expect((await b.signIn('ada@example.com', oneTimePassword)).location).toBe('/dashboard/');
    expect((await b.get('/dashboard/settings/keys')).location).toBe('/dashboard/password');
    expect((await b.get('/dashboard/password')).body).toContain('Choose a password');
    // A POST other than the password form is refused until a password is chosen.
    expect((await b.post('/dashboard/settings/keys', { name: 'x', scope: 'read' })).status).toBe(403);
    const short = await b.post('/dashboard/password', { password: 'short', confirm: 'short' });
    expect(short.status).toBe(400);
    expect(short.body).toContain('at least 12 characters');
    const weak = await b.post('/dashboard/password', { password: 'aaaaaaaaaaaa', confirm: 'aaaaaaaaaaaa' });
    expect(weak.status).toBe(400);
    expect(weak.body).toContain('This password is too easy to guess.');
    expect(weak.body).toContain('Repeated characters like &quot;aaa&quot; are easy to guess.');
    expect((await b.post('/dashboard/password', { password: PASSWORD, confirm: PASSWORD })).location).toBe('/dashboard/');
    const home = await b.get('/dashboard/');
    expect(home.status).toBe(200);
    expect(home.body).toContain('Company A');

    const again = new Browser(f.app);
    const reused = await again.signIn('ada@example.com', oneTimePassword);
    expect(reused.status).toBe(401);
    expect(reused.body).toContain('That email and password do not match an account.');
    expect((await again.signIn('ADA@example.com', PASSWORD)).status).toBe(303);
  });

  it('says the same thing for an unknown email and a wrong password', async () => {
    const b = new Browser(f.app, '10.0.0.9');
    const unknown = await b.signIn('nobody@example.com', PASSWORD);
    const wrong = await b.signIn('ada@example.com', 'not the password');
    expect([unknown.status, wrong.status]).toEqual([401, 401]);
    const message = (body: string) => /<div class="notice error"[^>]*>(.*?)<\/div>/.exec(body)?.[1];
    expect(message(unknown.body)).toBe(message(wrong.body));
  });

  it('keeps only a hash of the session; cookies are httpOnly, SameSite and scoped to /dashboard', async () => {
    await signedInUser(f.app, f.db, f.ids.companyA, 'cookies@example.com');
    const b = new Browser(f.app);
    const res = await b.signIn('cookies@example.com', PASSWORD);
    const cookies = ([] as string[]).concat(res.headers['set-cookie'] as string[]).filter((c) => c.startsWith('leadline_session='));
    expect(cookies).toHaveLength(1);
    const attributes = cookies[0]!.split('; ').slice(1).sort();
    expect(attributes).toEqual(['HttpOnly', 'Max-Age=43200', 'Path=/dashboard', 'SameSite=Lax']);
    const token = b.cookies.get('leadline_session')!;
    const stored = await f.db.kysely.selectFrom('sessions').select('id_hash').execute();
    expect(stored.map((s) => s.id_hash)).not.toContain(token);
    const users = await f.db.kysely.selectFrom('users').select(['password_hash', 'one_time_hash']).execute();
    for (const u of users) expect(u.password_hash ?? 'scrypt$').toMatch(/^scrypt\$/);
  });

  it('refuses a POST without the token, with a wrong token, or sent by another site; nothing changes', async () => {
    const b = await signedInUser(f.app, f.db, f.ids.companyA, 'csrf@example.com');
    await b.get('/dashboard/settings/keys');
    const keysBefore = await f.db.kysely.selectFrom('api_keys').select('id').execute();
    const form = { name: 'forged', scope: 'write' };
    const noToken = await b.request('POST', '/dashboard/settings/keys', { form });
    const wrongToken = await b.request('POST', '/dashboard/settings/keys', { form: { ...form, _csrf: 'x'.repeat(43) } });
    const crossSite = await b.post('/dashboard/settings/keys', form, { 'sec-fetch-site': 'cross-site' });
    const sameSite = await b.post('/dashboard/settings/keys', form, { 'sec-fetch-site': 'same-site' });
    const noCookie = await new Browser(f.app).request('POST', '/dashboard/settings/keys', { form: { ...form, _csrf: b.csrf } });
    for (const res of [noToken, wrongToken, crossSite, sameSite, noCookie]) {
      expect(res.status).toBe(403);
      expect(res.body).toContain('not sent by a leadline page');
    }
    expect(await f.db.kysely.selectFrom('api_keys').select('id').execute()).toHaveLength(keysBefore.length);
    // the same form with the page's token works
    expect((await b.post('/dashboard/settings/keys', form, { 'sec-fetch-site': 'same-origin' })).status).toBe(200);
  });

  it('refuses a sign-in form that was not served to this browser (login CSRF)', async () => {
    const { oneTimePassword } = await createUser(f.db, { companyId: f.ids.companyB, email: 'login-csrf@example.com' });
    const b = new Browser(f.app);
    const res = await b.request('POST', '/dashboard/login', { form: { email: 'login-csrf@example.com', password: oneTimePassword } });
    expect(res.status).toBe(403);
    expect(b.cookies.has('leadline_session')).toBe(false);
  });

  it('signs out: the old cookie no longer opens anything', async () => {
    const b = await signedInUser(f.app, f.db, f.ids.companyA, 'signout@example.com');
    const token = b.cookies.get('leadline_session')!;
    await b.get('/dashboard/');
    expect((await b.post('/dashboard/logout')).location).toBe('/dashboard/login');
    expect(b.cookies.has('leadline_session')).toBe(false);
    const replay = await new Browser(f.app).request('GET', '/dashboard/', { headers: { cookie: `leadline_session=${token}` } });
    expect(replay.status).toBe(303);
  });

  it('a password change or an operator reset ends the other sessions', async () => {
    const one = await signedInUser(f.app, f.db, f.ids.companyA, 'change@example.com');
    const two = new Browser(f.app);
    await two.signIn('change@example.com', PASSWORD);
    expect((await two.get('/dashboard/')).status).toBe(200);
    await one.get('/dashboard/password');
    const next = 'another long passphrase';
    const wrongCurrent = await one.post('/dashboard/password', { current: 'nope', password: next, confirm: next });
    expect(wrongCurrent.status).toBe(400);
    expect((await one.post('/dashboard/password', { current: PASSWORD, password: next, confirm: next })).status).toBe(303);
    expect((await one.get('/dashboard/')).status).toBe(200);
    expect((await two.get('/dashboard/')).status).toBe(303);

    const { oneTimePassword } = await resetPassword(f.db, 'change@example.com');
    expect((await one.get('/dashboard/')).status).toBe(303);
    expect((await new Browser(f.app).signIn('change@example.com', next)).status).toBe(401);
    expect((await new Browser(f.app).signIn('change@example.com', oneTimePassword)).status).toBe(303);
  });

  it('rate-limits sign-in attempts per email, then lets them through again after the window', async () => {
    await signedInUser(f.app, f.db, f.ids.companyA, 'limited@example.com', '10.1.0.1'); // attempt 1
    for (let i = 0; i < 9; i++) {
      const b = new Browser(f.app, `10.2.0.${i}`);
      expect((await b.signIn('limited@example.com', `wrong ${i}`)).status).toBe(401);
    }
    const blocked = await new Browser(f.app, '10.3.0.1').signIn('limited@example.com', PASSWORD);
    expect(blocked.status).toBe(429);
    expect(blocked.headers['retry-after']).toMatch(/^\d+$/);
    expect(blocked.body).toContain('Too many sign-in attempts');
    f.clock.advance(15 * 60_000 + 1000);
    expect((await new Browser(f.app, '10.3.0.1').signIn('limited@example.com', PASSWORD)).status).toBe(303);
  });
});

describe('sign-in limiter', () => {
  it('counts per client IP across emails, and per email across IPs', async () => {
    const clock = { now: 1_000_000 };
    const limiter = new SignInLimiter(new MemoryRateLimiter({ now: () => clock.now }), () => clock.now);
    for (let i = 0; i < DEFAULT_SIGNIN_LIMITS.perIp; i++) expect((await limiter.admit('10.0.0.1', `u${i}@x.io`)).allowed).toBe(true);
    const refused = await limiter.admit('10.0.0.1', 'fresh@x.io');
    expect(refused).toEqual({ allowed: false, retryAfterS: 15 * 60 });
    for (let i = 0; i < DEFAULT_SIGNIN_LIMITS.perEmail; i++) expect((await limiter.admit(`10.9.0.${i}`, 'Same@X.io')).allowed).toBe(true);
    expect((await limiter.admit('10.9.1.1', 'same@x.io ')).allowed).toBe(false);
    clock.now += 15 * 60_000;
    expect((await limiter.admit('10.0.0.1', 'fresh@x.io')).allowed).toBe(true);
  });
});

describe('cookies over HTTPS, behind a trusted proxy', () => {
  let f: Fixture;
  beforeAll(async () => {
    f = await makeFixture('sqlite', { env: { TRUST_PROXY: 'true' } });
  });
  afterAll(() => f?.close());

  it('carry the __Host- prefix with Secure and Path=/, are set once, and open the pages', async () => {
    await signedInUser(f.app, f.db, f.ids.companyA, 'https@example.com');
    const b = new Browser(f.app);
    const https = { 'x-forwarded-proto': 'https' };
    const form = await b.request('GET', '/dashboard/login', { headers: https });
    const signin = ([] as string[]).concat(form.headers['set-cookie'] as string[]);
    expect(signin.map((c) => c.split('=')[0])).toEqual(['__Host-leadline_signin']);
    const res = await b.request('POST', '/dashboard/login', {
      form: { email: 'https@example.com', password: PASSWORD, _csrf: b.csrf },
      headers: https,
    });
    expect(res.status).toBe(303);
    const sessions = ([] as string[]).concat(res.headers['set-cookie'] as string[]).filter((c) => c.startsWith('__Host-leadline_session='));
    expect(sessions).toHaveLength(1);
    expect(sessions[0]!.split('; ').slice(1).sort()).toEqual(['HttpOnly', 'Max-Age=43200', 'Path=/', 'SameSite=Lax', 'Secure']);
    expect((await b.request('GET', '/dashboard/campaigns', { headers: https })).status).toBe(200);
    // the same cookie without the prefix is not the session over HTTPS
    const plain = new Browser(f.app);
    const token = b.cookies.get('__Host-leadline_session')!;
    const replay = await plain.request('GET', '/dashboard/campaigns', { headers: { ...https, cookie: `leadline_session=${token}` } });
    expect(replay.status).toBe(303);
  });
});
