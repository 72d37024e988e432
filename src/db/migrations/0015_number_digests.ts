/**
 * Data that can really be deleted (docs/compliance.md):
 *
 * - number_digest_key: one random key per database (32 bytes as 64 hex
 *   digits), made here by the database's own random source, so that every
 *   process of the database digests a number alike from the start and no
 *   process has to race to create it. It keys the HMAC-SHA256 that stands in
 *   for a number once the number itself is removed (src/crypto/number-digest.ts).
 * - attempts.phone_digest: set when an attempt's number is removed (its lead
 *   deleted, or `leadline purge`), so the per-number call caps still count
 *   the call. An attempt holds its number or its digest, never both.
 * - attempts_company_digest: what the caps' count probes for the digests,
 *   partial: only attempts whose number was removed are in it.
 *
 * Frozen: plain SQL.
 */
import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../index.js';

export function numberDigests(dialect: Dialect) {
  // gen_random_uuid (PostgreSQL 13+) is from a strong random source; two of them are 244 random bits
  const randomKey =
    dialect === 'postgres'
      ? sql`replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', '')`
      : sql`lower(hex(randomblob(32)))`;
  return {
    async up(db: Kysely<any>) {
      await sql`create table number_digest_key (
        id integer primary key check (id = 1),
        key text not null)`.execute(db);
      await sql`insert into number_digest_key (id, key) values (1, ${randomKey})`.execute(db);
      await sql`alter table attempts add column phone_digest text`.execute(db);
      await sql`create index attempts_company_digest on attempts (company_id, phone_digest, started_at)
        where phone_digest is not null`.execute(db);
    },
  };
}
