/**
 * --regional-rules (docs/compliance.md): `us` applies the US state calling
 * rules to US numbers, `off` leaves the campaign's own window. Existing
 * campaigns get `us` too: the safe reading of an upgrade is that calls the
 * state laws forbid stop, not that they go on until someone opts in.
 */
import type { Kysely } from 'kysely';

export function regionalRules() {
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .alterTable('campaigns')
        .addColumn('regional_rules', 'text', (c) => c.notNull().defaultTo('us'))
        .execute();
    },
  };
}
