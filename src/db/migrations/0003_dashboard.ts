/** Dashboard accounts, their sign-in sessions, and an index for the overview's call counts. */
import type { Kysely } from 'kysely';
import type { Dialect } from '../index.js';

export function dashboard(dialect: Dialect) {
  const bigint = dialect === 'postgres' ? 'bigint' : 'integer';
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('users')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id'))
        // stored lowercased, so the unique index is case-insensitive on both dialects
        .addColumn('email', 'text', (c) => c.notNull().unique())
        // null until the user chooses a password after a one-time sign-in
        .addColumn('password_hash', 'text')
        .addColumn('one_time_hash', 'text')
        .addColumn('one_time_expires_at', bigint)
        .addColumn('created_at', bigint, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('users_company').on('users').column('company_id').execute();
      await db.schema
        .createTable('sessions')
        // sha256 of the cookie value: a leaked table cannot be replayed as cookies
        .addColumn('id_hash', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('csrf_token', 'text', (c) => c.notNull())
        .addColumn('created_at', bigint, (c) => c.notNull())
        .addColumn('expires_at', bigint, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('sessions_user').on('sessions').column('user_id').execute();
      await db.schema.createIndex('sessions_expires').on('sessions').column('expires_at').execute();
      // "Calls today" and "last attempts" per campaign read a range of this
      // index instead of every attempt the campaign ever made.
      await db.schema.createIndex('attempts_campaign_started').on('attempts').columns(['campaign_id', 'started_at']).execute();
    },
  };
}
