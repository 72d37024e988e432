/**
 * The dialer: claim columns and the due index on leads, and the attempts log.
 * Everything added to leads has a default, so the lead insert path does not
 * need to know the dialer exists.
 */
import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../index.js';

export function dialer(dialect: Dialect) {
  const pg = dialect === 'postgres';
  const bigint = pg ? 'bigint' : 'integer';
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .alterTable('leads')
        // ISO 8601 UTC text like scheduled_for, so that the two can share one
        // index expression (text order is time order). Set by the dialer: the
        // retry time after a failed attempt, the time the called person's local
        // window opens, or, while a claim is held, the claim's expiry.
        .addColumn('next_attempt_at', 'text')
        .execute();
      await db.schema.alterTable('leads').addColumn('claimed_by', 'text').execute();
      await db.schema.alterTable('leads').addColumn('claimed_at', bigint).execute();
      // Attempts granted beyond the campaign's maximum by `campaign recycle`,
      // so that `attempts` keeps counting every call ever made.
      await db.schema
        .alterTable('leads')
        .addColumn('extra_attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();

      // The claim query walks this index: for one campaign and one priority,
      // leads in due-time order, so "due now" is a range scan that starts at
      // the first due lead. Claimed, waiting and deferred leads carry a future
      // due time and sort after it; concluded and exhausted leads are not in
      // it at all. The expression must match src/dialer/claim-repository.ts exactly.
      const due = pg
        ? sql`(coalesce(next_attempt_at, scheduled_for, '') collate "C")`
        : sql`coalesce(next_attempt_at, scheduled_for, '')`;
      await sql`create index leads_due on leads (campaign_id, priority, ${due}, seq)
        where status in ('raw', 'attempting')`.execute(db);

      await db.schema
        .createTable('attempts')
        .addColumn('id', bigint, (c) => (pg ? c.primaryKey().generatedAlwaysAsIdentity() : c.primaryKey().autoIncrement()))
        // No foreign key: the attempts are the campaign's call log and outlive
        // a deleted lead, and a cascade would double the cost of a bulk delete
        // on PostgreSQL (measured: ~9 ms -> ~18 ms per 1000 leads).
        .addColumn('lead_id', 'text', (c) => c.notNull())
        .addColumn('campaign_id', 'text', (c) => c.notNull())
        .addColumn('attempt', 'integer', (c) => c.notNull())
        .addColumn('started_at', bigint, (c) => c.notNull())
        .addColumn('finished_at', bigint, (c) => c.notNull())
        .addColumn('success', 'integer', (c) => c.notNull())
        .addColumn('outcome', 'text', (c) => c.notNull())
        .addColumn('phone_number', 'text')
        .addColumn('reason', 'text')
        .addColumn('worker', 'text', (c) => c.notNull())
        .execute();
      // A lead's history, in order.
      await db.schema.createIndex('attempts_lead').on('attempts').columns(['lead_id', 'attempt']).execute();
    },
  };
}
