/** The users table (dashboard accounts). The same Kysely statements serve both databases. */
import type { Executor } from '../db/index.js';
import type { UserTable } from '../db/schema.js';

export type UserRow = UserTable;

export interface UserStore {
  /** false when the email is taken */
  insert(row: UserRow): Promise<boolean>;
  byEmail(email: string): Promise<UserRow | undefined>;
  byId(id: string): Promise<UserRow | undefined>;
  /** the company's users, oldest first */
  ofCompany(companyId: string): Promise<Pick<UserRow, 'id' | 'email' | 'created_at' | 'password_hash'>[]>;
  /** a new one-time password replaces the old password: a reset must lock out whoever knew it */
  setOneTime(userId: string, hash: string, expiresAt: number): Promise<void>;
  /**
   * Clears the one-time password only if it is still the one presented: of
   * two sign-ins racing with the same one-time password, exactly one wins.
   */
  consumeOneTime(userId: string, hash: string): Promise<boolean>;
  setPasswordHash(userId: string, hash: string): Promise<void>;
  /** deletes the user (their sessions go with them: ON DELETE CASCADE) */
  remove(userId: string): Promise<void>;
}

export class KyselyUserStore implements UserStore {
  constructor(private readonly ex: Executor) {}

  async insert(row: UserRow): Promise<boolean> {
    const result = await this.ex
      .insertInto('users')
      .values(row)
      .onConflict((oc) => oc.column('email').doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
  }

  byEmail(email: string): Promise<UserRow | undefined> {
    return this.ex.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
  }

  byId(id: string): Promise<UserRow | undefined> {
    return this.ex.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
  }

  ofCompany(companyId: string) {
    return this.ex
      .selectFrom('users')
      .select(['id', 'email', 'created_at', 'password_hash'])
      .where('company_id', '=', companyId)
      .orderBy('created_at')
      .execute();
  }

  async setOneTime(userId: string, hash: string, expiresAt: number): Promise<void> {
    await this.ex
      .updateTable('users')
      .set({ one_time_hash: hash, one_time_expires_at: expiresAt, password_hash: null })
      .where('id', '=', userId)
      .execute();
  }

  async consumeOneTime(userId: string, hash: string): Promise<boolean> {
    const result = await this.ex
      .updateTable('users')
      .set({ one_time_hash: null, one_time_expires_at: null })
      .where('id', '=', userId)
      .where('one_time_hash', '=', hash)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async setPasswordHash(userId: string, hash: string): Promise<void> {
    await this.ex
      .updateTable('users')
      .set({ password_hash: hash, one_time_hash: null, one_time_expires_at: null })
      .where('id', '=', userId)
      .execute();
  }

  async remove(userId: string): Promise<void> {
    await this.ex.deleteFrom('users').where('id', '=', userId).execute();
  }
}
