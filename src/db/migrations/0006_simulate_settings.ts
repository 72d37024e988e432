/**
 * The simulate provider's failure mix and call duration become campaign
 * settings (they were a fixed 60/25/15 split and a dialer flag). The
 * defaults are what every campaign had before: existing campaigns keep
 * behaving exactly as they did. src/campaigns/settings.ts lists the same
 * defaults.
 */
import type { Kysely } from 'kysely';
import type { Dialect } from '../index.js';

export function simulateSettings(_dialect: Dialect) {
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .alterTable('campaigns')
        .addColumn('simulate_failures', 'text', (c) => c.notNull().defaultTo('no-answer=0.6,busy=0.25,voicemail=0.15'))
        .execute();
      await db.schema
        .alterTable('campaigns')
        .addColumn('simulate_duration', 'text', (c) => c.notNull().defaultTo('0s'))
        .execute();
    },
  };
}
