/**
 * Compliance: the do-not-call list, one per company. A row is one E.164
 * number the company must never call, with when and how it was added
 * (`source`: api, cli, dashboard, import, or call when the person asked
 * during a call) and an optional reason. The primary key (company, number)
 * is what the claim's anti-join and the check before each call probe.
 * Frozen: plain SQL.
 */
import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../index.js';

export function compliance(dialect: Dialect) {
  const bigint = dialect === 'postgres' ? 'bigint' : 'integer';
  return {
    async up(db: Kysely<any>) {
      await sql`create table dnc (
        company_id text not null,
        phone_number text not null,
        added_at ${sql.raw(bigint)} not null,
        source text not null,
        reason text,
        primary key (company_id, phone_number))`.execute(db);
    },
  };
}
