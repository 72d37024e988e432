/**
 * Dashboard accounts: an operator creates a user (or resets one) and hands
 * over a one-time password; the first sign-in with it consumes it and the
 * user must then choose a password before seeing anything else.
 */
import { randomBytes } from 'node:crypto';
import { sameText, sha256Hex } from '../crypto/digest.js';
import { AppError } from '../errors.js';
import { newId } from '../ids.js';
import { dummyHash, generateOneTimePassword, hashOneTime, hashPassword, passwordProblem, verifyPassword } from './passwords.js';
import type { Store } from '../store/index.js';
import type { TxStore } from '../store/types.js';
import { storable } from '../storable.js';

const ONE_TIME_TTL_MS = 7 * 24 * 3_600_000;
export const SESSION_TTL_MS = 12 * 3_600_000;

export const normalizeEmail = (email: string): string => email.trim().toLowerCase();
const EMAIL = /^[^\s@]+@[^\s@]+$/;
/**
 * Taken by everything that changes who may sign in (a reset, a password
 * change, a removal) and by starting a session, so a sign-in's last check of
 * the credential and its new session cannot straddle any of them.
 */
const usersLock = (companyId: string) => `users:${companyId}`;

export interface IssuedPassword {
  userId: string;
  email: string;
  oneTimePassword: string;
  expiresAt: string;
}

export async function createUser(store: TxStore, input: { companyId: string; email: string }, now = Date.now()): Promise<IssuedPassword> {
  const email = normalizeEmail(input.email);
  if (!EMAIL.test(email) || email.length > 254 || !storable(email))
    throw new AppError('validation', `not an email address: "${input.email}"`);
  if (!(await store.companies.exists(input.companyId))) throw new AppError('not_found', `company ${input.companyId} not found`);
  const oneTimePassword = generateOneTimePassword();
  const userId = newId('us_');
  const expiresAt = now + ONE_TIME_TTL_MS;
  const inserted = await store.users.insert({
    id: userId,
    company_id: input.companyId,
    email,
    password_hash: null,
    one_time_hash: hashOneTime(oneTimePassword),
    one_time_expires_at: expiresAt,
    created_at: now,
  });
  if (!inserted) throw new AppError('conflict', `a user with email ${email} already exists`);
  return { userId, email, oneTimePassword, expiresAt: new Date(expiresAt).toISOString() };
}

/** a new one-time password; the old password and every session stop working */
export async function resetPassword(store: Store, emailInput: string, now = Date.now()): Promise<IssuedPassword> {
  const email = normalizeEmail(emailInput);
  const user = await store.users.byEmail(email);
  if (!user) throw new AppError('not_found', `no user with email ${email}`);
  const oneTimePassword = generateOneTimePassword();
  const expiresAt = now + ONE_TIME_TTL_MS;
  await store.transaction(
    async (tx) => {
      await tx.users.setOneTime(user.id, hashOneTime(oneTimePassword), expiresAt);
      await tx.sessions.deleteOfUser(user.id);
    },
    { lock: usersLock(user.company_id) },
  );
  return { userId: user.id, email, oneTimePassword, expiresAt: new Date(expiresAt).toISOString() };
}

export const listUsers = async (store: Store, companyId: string) =>
  (await store.users.ofCompany(companyId)).map((u) => ({
    userId: u.id,
    email: u.email,
    createdAt: new Date(Number(u.created_at)).toISOString(),
    passwordSet: u.password_hash !== null,
  }));

/**
 * Removes a user of the company and ends their sessions. The company's last
 * user cannot be removed: nobody could then sign in to add one. Counted and
 * deleted under one lock, so two removals at once cannot both pass the count.
 */
export async function removeUser(store: Store, companyId: string, userId: string): Promise<void> {
  await store.transaction(
    async (tx) => {
      const users = await tx.users.ofCompany(companyId);
      if (!users.some((u) => u.id === userId)) throw new AppError('not_found', 'user not found');
      if (users.length === 1) throw new AppError('conflict', 'The last user of a company cannot be removed: add another user first.');
      await tx.sessions.deleteOfUser(userId);
      await tx.users.remove(userId);
    },
    { lock: usersLock(companyId) },
  );
}

/** who signed in, and the credential their password matched: startSession starts a session only while it is still theirs */
export interface SignIn {
  userId: string;
  companyId: string;
  /** the stored password hash, or the hash of the unused one-time password (consumed by startSession) */
  credential: { passwordHash: string } | { oneTimeHash: string };
}

/** the user and credential the email and password (or unused one-time password) match; null otherwise */
export async function verifySignIn(store: Store, emailInput: string, password: string, now: number): Promise<SignIn | null> {
  const email = normalizeEmail(emailInput);
  // PostgreSQL cannot even compare an email holding a NUL: it matches no account, at the same cost as any other
  const user = storable(email) ? await store.users.byEmail(email) : undefined;
  if (user?.one_time_hash && Number(user.one_time_expires_at ?? 0) > now && sameText(user.one_time_hash, hashOneTime(password))) {
    return { userId: user.id, companyId: user.company_id, credential: { oneTimeHash: user.one_time_hash } };
  }
  // An unknown email or an unset password still costs one scrypt, so timing does not tell which emails exist.
  const ok = await verifyPassword(password, user?.password_hash ?? (await dummyHash()));
  return user?.password_hash && ok
    ? { userId: user.id, companyId: user.company_id, credential: { passwordHash: user.password_hash } }
    : null;
}

export interface NewSession {
  /** the cookie value; only its sha256 is stored */
  token: string;
  idHash: string;
}

/**
 * A session for a sign-in, or null when the credential it matched is no
 * longer the user's. verifySignIn spends a scrypt (~0.2 s) on a row read
 * before it; a reset, a password change or a removal landing meanwhile ends
 * every session, and must end this one too: a session started anyway would
 * outlive the reset, and after one (no password) could choose a new
 * password without the one-time one. So the check and the insert run in one
 * transaction under the lock those take. A one-time password is consumed
 * there: of two sign-ins racing with it, exactly one gets a session.
 */
export async function startSession(store: Store, signIn: SignIn, now: number): Promise<NewSession | null> {
  const token = randomBytes(32).toString('base64url');
  const idHash = sha256Hex(token);
  await store.sessions.deleteExpired(now);
  const started = await store.transaction(
    async (tx) => {
      const c = signIn.credential;
      const current =
        'oneTimeHash' in c
          ? await tx.users.consumeOneTime(signIn.userId, c.oneTimeHash)
          : (await tx.users.byId(signIn.userId))?.password_hash === c.passwordHash;
      if (!current) return false;
      await tx.sessions.insert({
        id_hash: idHash,
        user_id: signIn.userId,
        csrf_token: randomBytes(32).toString('base64url'),
        created_at: now,
        expires_at: now + SESSION_TTL_MS,
      });
      return true;
    },
    { lock: usersLock(signIn.companyId) },
  );
  return started ? { token, idHash } : null;
}

export const sessionIdHash = sha256Hex;

export const loadSession = (store: Store, token: string, now: number) => store.sessions.find(sha256Hex(token), now);

export const endSession = (store: Store, idHash: string) => store.sessions.delete(idHash);

/**
 * Sets the user's password. A user who already has one must give it; every
 * other session of the user ends, so a stolen session dies with the change.
 * Written only if this session is still alive and the password still the one
 * checked: a reset or another change during the scrypts below ended this
 * session, and a password set anyway would undo the reset.
 */
export async function choosePassword(
  store: Store,
  input: { userId: string; keepSession: string; current?: string; password: string; confirm: string },
  now = Date.now(),
): Promise<string | null> {
  const user = await store.users.byId(input.userId);
  if (!user) throw new AppError('not_found', 'user not found');
  if (user.password_hash !== null && !(await verifyPassword(input.current ?? '', user.password_hash))) {
    return 'The current password is not correct.';
  }
  const problem = await passwordProblem(input.password, [user.email]);
  if (problem) return problem;
  if (input.password !== input.confirm) return 'The two new passwords differ.';
  const hash = await hashPassword(input.password);
  const changed = await store.transaction(
    async (tx) => {
      const live = await tx.sessions.find(input.keepSession, now);
      if (live?.userId !== user.id || (await tx.users.byId(user.id))?.password_hash !== user.password_hash) return false;
      await tx.users.setPasswordHash(user.id, hash);
      await tx.sessions.deleteOthers(user.id, input.keepSession);
      return true;
    },
    { lock: usersLock(user.company_id) },
  );
  return changed ? null : 'Your password was reset or changed meanwhile, which signed you out: sign in again.';
}
