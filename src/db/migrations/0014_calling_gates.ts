/**
 * When a lead may be called (docs/compliance.md): a campaign's closed dates
 * (`--closed-dates`: ISO dates and `us-federal`, read on the called person's
 * calendar; '' for none) and its consent gate (`--require-consent`: a lead is
 * due only when metadata.consentAt holds a timestamp; 0 or 1). Existing
 * campaigns get neither, so they call as before.
 */
import type { Kysely } from 'kysely';
import type { Dialect } from '../index.js';

export function callingGates(_dialect: Dialect) {
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .alterTable('campaigns')
        .addColumn('closed_dates', 'text', (c) => c.notNull().defaultTo(''))
        .execute();
      await db.schema
        .alterTable('campaigns')
        .addColumn('require_consent', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
    },
  };
}
