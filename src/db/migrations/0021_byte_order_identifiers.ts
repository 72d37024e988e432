/**
 * PostgreSQL only: the two unique identifier indexes of 0001 now compare bytes
 * (text_pattern_ops), so they also serve the lead search's "starts with"
 * ranges (src/store/shared/lead-search.ts), and 0018's two `_start` indexes
 * go. Every update of a lead that changes an indexed column (a claim, a close)
 * writes an entry in every index of `leads`; two fewer is two fewer entries
 * per update and per lead created.
 *
 * Equality, uniqueness and `on conflict (campaign_id, phone_number)` are
 * unchanged: a deterministic collation's equality is byte equality, and
 * conflict inference matches an index of any operator class. The ranges use
 * the class's own operators (`~>=~`, `~<~`), whatever the database's
 * collation. SQLite compares bytes already and has no `_start` indexes.
 *
 * Each index is built before the old one is dropped and then takes its name,
 * so uniqueness holds throughout. The builds read the whole table once each.
 *
 * Frozen: plain SQL.
 */
import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../index.js';

export function byteOrderIdentifiers(dialect: Dialect) {
  return {
    async up(db: Kysely<any>) {
      if (dialect !== 'postgres') return;
      for (const [column, name] of [
        ['phone_number', 'phone'],
        ['external_id', 'external'],
      ] as const) {
        const unique = `leads_campaign_${column}`;
        await sql`create unique index ${sql.raw(`${unique}_bytes`)} on leads (campaign_id, ${sql.ref(column)} text_pattern_ops)`.execute(db);
        await sql`drop index ${sql.raw(unique)}`.execute(db);
        await sql`alter index ${sql.raw(`${unique}_bytes`)} rename to ${sql.raw(unique)}`.execute(db);
        await sql`drop index ${sql.raw(`leads_${name}_start`)}`.execute(db);
      }
    },
  };
}
