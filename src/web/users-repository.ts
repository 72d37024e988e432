/** The only SQL for dashboard users and sessions. */
import type { Executor } from '../db/index.js';
import type { SessionTable, UserTable } from '../db/schema.js';

export type UserRow = UserTable;

export async function insertUser(ex: Executor, row: UserRow): Promise<boolean> {
  const result = await ex
    .insertInto('users')
    .values(row)
    .onConflict((oc) => oc.column('email').doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

export const findUserByEmail = (ex: Executor, email: string): Promise<UserRow | undefined> =>
  ex.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();

export const findUserById = (ex: Executor, id: string): Promise<UserRow | undefined> =>
  ex.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();

export const listUsers = (ex: Executor, companyId: string) =>
  ex
    .selectFrom('users')
    .select(['id', 'email', 'created_at', 'password_hash'])
    .where('company_id', '=', companyId)
    .orderBy('created_at')
    .execute();

/** a new one-time password replaces the old password: a reset must lock out whoever knew it */
export async function setOneTime(ex: Executor, userId: string, hash: string, expiresAt: number): Promise<void> {
  await ex
    .updateTable('users')
    .set({ one_time_hash: hash, one_time_expires_at: expiresAt, password_hash: null })
    .where('id', '=', userId)
    .execute();
}

export async function deleteUserSessions(ex: Executor, userId: string): Promise<void> {
  await ex.deleteFrom('sessions').where('user_id', '=', userId).execute();
}

/**
 * Clears the one-time password only if it is still the one presented: of two
 * sign-ins racing with the same one-time password, exactly one wins.
 */
export async function consumeOneTime(ex: Executor, userId: string, hash: string): Promise<boolean> {
  const result = await ex
    .updateTable('users')
    .set({ one_time_hash: null, one_time_expires_at: null })
    .where('id', '=', userId)
    .where('one_time_hash', '=', hash)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function setPasswordHash(ex: Executor, userId: string, hash: string): Promise<void> {
  await ex
    .updateTable('users')
    .set({ password_hash: hash, one_time_hash: null, one_time_expires_at: null })
    .where('id', '=', userId)
    .execute();
}

export async function insertSession(ex: Executor, row: SessionTable): Promise<void> {
  await ex.insertInto('sessions').values(row).execute();
}

export interface SessionView {
  userId: string;
  email: string;
  companyId: string;
  companyName: string;
  csrfToken: string;
  hasPassword: boolean;
}

export async function findSession(ex: Executor, idHash: string, now: number): Promise<SessionView | undefined> {
  const row = await ex
    .selectFrom('sessions as s')
    .innerJoin('users as u', 'u.id', 's.user_id')
    .innerJoin('companies as c', 'c.id', 'u.company_id')
    .select(['u.id as userId', 'u.email', 'c.id as companyId', 'c.name as companyName', 's.csrf_token', 'u.password_hash'])
    .where('s.id_hash', '=', idHash)
    .where('s.expires_at', '>', now)
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    userId: row.userId,
    email: row.email,
    companyId: row.companyId,
    companyName: row.companyName,
    csrfToken: row.csrf_token,
    hasPassword: row.password_hash !== null,
  };
}

export async function deleteSession(ex: Executor, idHash: string): Promise<void> {
  await ex.deleteFrom('sessions').where('id_hash', '=', idHash).execute();
}

/** every session of the user but `keep` (after a password change) */
export async function deleteOtherSessions(ex: Executor, userId: string, keep: string): Promise<void> {
  await ex.deleteFrom('sessions').where('user_id', '=', userId).where('id_hash', '!=', keep).execute();
}

export async function deleteExpiredSessions(ex: Executor, now: number): Promise<void> {
  await ex.deleteFrom('sessions').where('expires_at', '<=', now).execute();
}
