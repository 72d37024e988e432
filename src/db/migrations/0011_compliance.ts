/**
 * Compliance:
 *
 * - dnc: the do-not-call list, one per company. A row is one E.164 number
 *   the company must never call, with when and how it was added (`source`:
 *   api, cli, dashboard, import, or call when the person asked during a
 *   call) and an optional reason. The primary key (company, number) is what
 *   the claim's anti-join and the check before each call probe.
 * - companies.call_caps: calls placed to one number across all the
 *   company's campaigns per rolling window, e.g. "3/24h,7/7d"; '' for none.
 * - attempts (company_id, phone_number, started_at): the calls placed to a
 *   number, counted right before each call against the caps and checked for
 *   a call to the same number still in progress.
 *
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
      await sql`alter table companies add column call_caps text not null default ''`.execute(db);
      await sql`create index attempts_company_phone on attempts (company_id, phone_number, started_at)`.execute(db);
    },
  };
}
