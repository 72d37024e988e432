/**
 * Two indexes served the lookup of an attempt by its platform's call id: the
 * partial attempts_provider_call (0009, the calls that have an id) and a full
 * one added again by 0013, which also held an entry for every attempt without
 * one. A lookup `provider_call_id = ?` implies the id is not null, so both
 * PostgreSQL and SQLite use the partial index for it; the full one only cost
 * an entry on every attempt written (test/db/provider-call-index.test.ts
 * reads the plan on both stores).
 *
 * Frozen: plain SQL.
 */
import { type Kysely, sql } from 'kysely';

export function oneProviderCallIndex() {
  return {
    async up(db: Kysely<any>) {
      await sql`drop index if exists attempts_provider_call_id`.execute(db);
    },
  };
}
