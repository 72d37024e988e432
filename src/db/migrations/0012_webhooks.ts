/**
 * Events out (docs/events.md):
 *
 * - events.tx: on PostgreSQL the id of the transaction that wrote the row
 *   (pg_current_xact_id). Identity ids are handed out before commit, so
 *   transactions commit out of id order and a reader that followed ids
 *   alone would step past a row committed late. Readers follow (tx, id)
 *   and only read rows whose transaction is older than every transaction
 *   still running: that set only grows at its end. SQLite has one writer,
 *   ids commit in order, and tx stays 0. Rows written before this
 *   migration keep 0: they are all committed.
 * - webhooks: a company's endpoints, each with its own position in the
 *   events (what it has been sent), the tries of the message at its head,
 *   and a lease, so that one `leadline serve` delivers to it at a time.
 * - webhook_deliveries: one row per try (status, latency, response code).
 */
import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../index.js';

export function webhooks(dialect: Dialect) {
  const pg = dialect === 'postgres';
  const bigint = pg ? 'bigint' : 'integer';
  return {
    async up(db: Kysely<any>) {
      await db.schema.alterTable('events').addColumn('tx', bigint, (c) => c.notNull().defaultTo(0)).execute();
      if (pg) await sql`alter table events alter column tx set default (pg_current_xact_id()::text::bigint)`.execute(db);
      await sql`create index events_company_tx on events (company_id, tx, id)`.execute(db);
      await sql`create index events_campaign_tx on events (campaign_id, tx, id)`.execute(db);

      await db.schema
        .createTable('webhooks')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('company_id', 'text', (c) => c.notNull())
        .addColumn('campaign_id', 'text')
        .addColumn('url', 'text', (c) => c.notNull())
        .addColumn('secret', 'text', (c) => c.notNull())
        .addColumn('event_types', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('created_at', bigint, (c) => c.notNull())
        .addColumn('disabled_at', bigint)
        .addColumn('disabled_reason', 'text')
        .addColumn('pos_tx', bigint, (c) => c.notNull())
        .addColumn('pos_id', bigint, (c) => c.notNull())
        .addColumn('pos_n', 'integer', (c) => c.notNull())
        .addColumn('tries', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('next_try_at', bigint, (c) => c.notNull())
        .addColumn('failing_since', bigint)
        .addColumn('lease_owner', 'text')
        .addColumn('lease_until', bigint)
        .execute();
      await sql`create index webhooks_company on webhooks (company_id, created_at)`.execute(db);
      await sql`create index webhooks_due on webhooks (next_try_at) where disabled_at is null`.execute(db);

      await db.schema
        .createTable('webhook_deliveries')
        .addColumn('id', bigint, (c) => (pg ? c.primaryKey().generatedAlwaysAsIdentity() : c.primaryKey().autoIncrement()))
        .addColumn('webhook_id', 'text', (c) => c.notNull())
        .addColumn('message_id', 'text', (c) => c.notNull())
        .addColumn('event_type', 'text', (c) => c.notNull())
        .addColumn('try', 'integer', (c) => c.notNull())
        .addColumn('ok', 'integer', (c) => c.notNull())
        .addColumn('status_code', 'integer')
        .addColumn('latency_ms', 'integer', (c) => c.notNull())
        .addColumn('error', 'text')
        .addColumn('created_at', bigint, (c) => c.notNull())
        .execute();
      await sql`create index webhook_deliveries_webhook on webhook_deliveries (webhook_id, id)`.execute(db);
      await sql`create index webhook_deliveries_created on webhook_deliveries (created_at)`.execute(db);
    },
  };
}
