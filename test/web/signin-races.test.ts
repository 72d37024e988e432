/**
 * A sign-in spends one scrypt (~0.2 s) checking the password against the user
 * row it read first. A reset or a password change landing in between ends
 * every session; the sign-in used to insert its session afterwards without
 * looking again, so a stolen password kept a session through the reset, and
 * since a reset clears the password, that session could choose a new one
 * without the one-time password: the account taken back. Now the session
 * starts only if the credential checked is still the user's, checked and
 * inserted under the lock resets and changes take (startSession). A password
 * change overlapping a reset is refused the same way (choosePassword). Each
 * race is made deterministic by running the reset or the change right after
 * the step reads the user.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserRow } from '../../src/store/users.js';
import { createUser, resetPassword } from '../../src/web/accounts.js';
import { availableStores } from '../helpers/db.js';
import { type Fixture, makeFixture } from '../helpers/fixture.js';
import { Browser, PASSWORD, signedInUser } from './support.js';

describe.each(await availableStores())('sign-ins and password changes racing a reset on %s', (kind) => {
  let f: Fixture;
  beforeAll(async () => {
    f = await makeFixture(kind);
  });
  afterAll(() => f.close());

  /** runs `meanwhile` once, right after the next read of a user by `method`, before its caller checks the password */
  async function during<T>(method: 'byEmail' | 'byId', meanwhile: () => Promise<unknown>, step: () => Promise<T>): Promise<T> {
    const users = f.db.users;
    const original = users[method].bind(users) as (key: string) => Promise<UserRow | undefined>;
    users[method] = async (key: string) => {
      const row = await original(key);
      users[method] = original;
      await meanwhile();
      return row;
    };
    try {
      return await step();
    } finally {
      users[method] = original;
    }
  }

  const sessionsOf = async (email: string) =>
    (
      await f.db.kysely
        .selectFrom('sessions as s')
        .innerJoin('users as u', 'u.id', 's.user_id')
        .select('s.id_hash')
        .where('u.email', '=', email)
        .execute()
    ).length;

  it('a sign-in overlapping a reset gets no session, so the old password cannot choose a new one', async () => {
    const email = 'race-reset@example.com';
    await signedInUser(f.app, f.db, f.ids.companyA, email, '10.66.0.1');
    const attacker = new Browser(f.app, '10.66.0.2');
    await attacker.get('/dashboard/login');
    let oneTimePassword = '';
    const signIn = await during(
      'byEmail',
      async () => ({ oneTimePassword } = await resetPassword(f.db, email)),
      () => attacker.post('/dashboard/login', { email, password: PASSWORD }),
    );
    expect(signIn.status).toBe(401);
    expect(signIn.body).toContain('That email and password do not match an account.');
    expect((await attacker.get('/dashboard/')).location).toMatch(/^\/dashboard\/login/);
    await attacker.get('/dashboard/password');
    const takeover = await attacker.post('/dashboard/password', { password: 'attacker owns this now', confirm: 'attacker owns this now' });
    expect(takeover.status).not.toBe(303);
    expect(await sessionsOf(email)).toBe(0);
    // the reset stands: its one-time password signs the owner in
    expect((await new Browser(f.app, '10.66.0.3').signIn(email, oneTimePassword)).status).toBe(303);
  });

  it('a sign-in with the old password overlapping a password change gets no session; the changer keeps theirs', async () => {
    const email = 'race-change@example.com';
    const owner = await signedInUser(f.app, f.db, f.ids.companyA, email, '10.67.0.1');
    await owner.get('/dashboard/password');
    const next = 'another long passphrase';
    const attacker = new Browser(f.app, '10.67.0.2');
    await attacker.get('/dashboard/login');
    const signIn = await during(
      'byEmail',
      async () => expect((await owner.post('/dashboard/password', { current: PASSWORD, password: next, confirm: next })).status).toBe(303),
      () => attacker.post('/dashboard/login', { email, password: PASSWORD }),
    );
    expect(signIn.status).toBe(401);
    expect((await attacker.get('/dashboard/')).status).toBe(303);
    expect((await owner.get('/dashboard/')).status).toBe(200);
    expect(await sessionsOf(email)).toBe(1);
  });

  it('a password change overlapping a reset is refused and leaves the reset in force', async () => {
    const email = 'race-choose@example.com';
    const thief = await signedInUser(f.app, f.db, f.ids.companyA, email, '10.68.0.1');
    await thief.get('/dashboard/password');
    const mine = 'attacker owns this now';
    let oneTimePassword = '';
    const change = await during(
      'byId',
      async () => ({ oneTimePassword } = await resetPassword(f.db, email)),
      () => thief.post('/dashboard/password', { current: PASSWORD, password: mine, confirm: mine }),
    );
    expect(change.status).toBe(400);
    expect(change.body).toContain('Your password was reset or changed meanwhile');
    expect((await thief.get('/dashboard/')).status).toBe(303);
    expect((await new Browser(f.app, '10.68.0.2').signIn(email, mine)).status).toBe(401);
    expect((await new Browser(f.app, '10.68.0.3').signIn(email, oneTimePassword)).status).toBe(303);
  });

  it('of two sign-ins racing with one one-time password, exactly one gets a session', async () => {
    const email = 'race-otp@example.com';
    const { oneTimePassword } = await createUser(f.db, { companyId: f.ids.companyA, email });
    const one = new Browser(f.app, '10.69.0.1');
    const two = new Browser(f.app, '10.69.0.2');
    await Promise.all([one.get('/dashboard/login'), two.get('/dashboard/login')]);
    const results = await Promise.all([one, two].map((b) => b.post('/dashboard/login', { email, password: oneTimePassword })));
    expect(results.map((r) => r.status).sort()).toEqual([303, 401]);
    expect(await sessionsOf(email)).toBe(1);
  });
});
