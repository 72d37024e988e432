/**
 * The dashboard's lead search by the start or the end of a phone number or
 * an externalId (src/store/shared/leads.ts, search). Both are range scans of
 * an index, the end through the reversed value: `reverse(x)` starting with
 * the reversed text. Nothing is stored beside the lead: an index entry goes
 * with its row, so a deleted lead's number leaves no copy (docs/compliance.md).
 *
 * - PostgreSQL: the ranges compare bytes (collate "C"), whatever the
 *   database's collation, so the existing unique indexes (default collation)
 *   cannot serve the starts; four indexes here.
 * - SQLite compares bytes already: the unique indexes of 0001 serve the
 *   starts. It has no reverse(); src/db/sqlite-driver.ts registers one, as
 *   deterministic, on every connection leadline opens. Another program (the
 *   sqlite3 shell) that writes to leads must register it too.
 *
 * Partial (`is not null`): most leads have only one of the two identifiers.
 * Frozen: plain SQL.
 */
import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../index.js';

export function leadSearch(dialect: Dialect) {
  return {
    async up(db: Kysely<any>) {
      for (const [column, name] of [
        ['phone_number', 'phone'],
        ['external_id', 'external'],
      ] as const) {
        const c = sql.ref(column);
        if (dialect === 'postgres') {
          await sql`create index ${sql.raw(`leads_${name}_start`)} on leads (campaign_id, (${c} collate "C"))
            where ${c} is not null`.execute(db);
          await sql`create index ${sql.raw(`leads_${name}_end`)} on leads (campaign_id, (reverse(${c}) collate "C"))
            where ${c} is not null`.execute(db);
        } else {
          await sql`create index ${sql.raw(`leads_${name}_end`)} on leads (campaign_id, reverse(${c}))
            where ${c} is not null`.execute(db);
        }
      }
    },
  };
}
