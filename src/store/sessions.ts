/** The sessions table (dashboard sign-ins). The same Kysely statements serve both databases. */
import type { Executor } from '../db/index.js';
import type { SessionTable } from '../db/schema.js';

export type SessionRow = SessionTable;

/** a live session with what the pages need of its user and company */
export interface SessionView {
  userId: string;
  email: string;
  companyId: string;
  companyName: string;
  csrfToken: string;
  hasPassword: boolean;
}

export interface SessionStore {
  insert(row: SessionRow): Promise<void>;
  /** the session if it has not expired at `now` */
  find(idHash: string, now: number): Promise<SessionView | undefined>;
  delete(idHash: string): Promise<void>;
  deleteOfUser(userId: string): Promise<void>;
  /** every session of the user but `keep` (after a password change) */
  deleteOthers(userId: string, keep: string): Promise<void>;
  deleteExpired(now: number): Promise<void>;
}

export class KyselySessionStore implements SessionStore {
  constructor(private readonly ex: Executor) {}

  async insert(row: SessionRow): Promise<void> {
    await this.ex.insertInto('sessions').values(row).execute();
  }

  async find(idHash: string, now: number): Promise<SessionView | undefined> {
    const row = await this.ex
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

  async delete(idHash: string): Promise<void> {
    await this.ex.deleteFrom('sessions').where('id_hash', '=', idHash).execute();
  }

  async deleteOfUser(userId: string): Promise<void> {
    await this.ex.deleteFrom('sessions').where('user_id', '=', userId).execute();
  }

  async deleteOthers(userId: string, keep: string): Promise<void> {
    await this.ex.deleteFrom('sessions').where('user_id', '=', userId).where('id_hash', '!=', keep).execute();
  }

  async deleteExpired(now: number): Promise<void> {
    await this.ex.deleteFrom('sessions').where('expires_at', '<=', now).execute();
  }
}
