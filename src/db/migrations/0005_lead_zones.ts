/**
 * The called person's zones on each lead, so that the dialer's claim leaves
 * out leads outside their local window instead of claiming them and giving
 * them back (src/dialer/local-zones.ts):
 *
 * - `zone_sets`: every distinct set of IANA zones a lead may be in, once;
 * - `leads.local_zones`: the lead's zone set id, NULL until worked out (the
 *   lead insert path does not name it; the dialer fills it before claiming).
 *
 * The due index (0002) is unchanged: the claim checks local_zones on the row,
 * beside attempts, while it walks the index in due order. As an index column
 * it would not help: PostgreSQL (before 17) gives up the index order for an
 * `= ANY` condition on a later column and sorts the whole due range instead.
 *
 * Existing leads keep NULL here: the dialer works out the zones of every
 * lead still at NULL in a campaign before it claims from it (the same path as
 * for a lead created after this migration), so nothing is called before its
 * zones are known. A migration is frozen once released, so it imports no
 * domain code: the prefix table may change, this file may not.
 */
import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../index.js';

export function leadZones(dialect: Dialect) {
  const pg = dialect === 'postgres';
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('zone_sets')
        .addColumn('id', 'integer', (c) => (pg ? c.primaryKey().generatedAlwaysAsIdentity() : c.primaryKey().autoIncrement()))
        // IANA names joined by one space; '' = unknown, the campaign's zone applies
        .addColumn('zones', 'text', (c) => c.notNull().unique())
        .execute();
      await db.schema.alterTable('leads').addColumn('local_zones', 'integer').execute();
      // The leads the dialer has yet to fill: an empty index once it has.
      await sql`create index leads_zones_unknown on leads (campaign_id) where local_zones is null`.execute(db);
    },
  };
}
