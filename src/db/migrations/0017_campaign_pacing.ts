/**
 * --calls-per-second across dialer processes (src/store/pacing.ts): one row
 * per campaign that has a cap and has started a call under it, holding the
 * earliest instant (ms, on the database's clock) its next call may start.
 * Every dialer sharing the database reserves its calls' slots from this row,
 * so the cap holds campaign-wide. The row goes with its campaign.
 */
import type { Kysely } from 'kysely';
import type { Dialect } from '../index.js';

export function campaignPacing(dialect: Dialect) {
  const bigint = dialect === 'postgres' ? 'bigint' : 'integer';
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('campaign_pacing')
        .addColumn('campaign_id', 'text', (c) => c.primaryKey().references('campaigns.id').onDelete('cascade'))
        .addColumn('next_call_at', bigint, (c) => c.notNull())
        .execute();
    },
  };
}
