/** Companies, campaigns, API keys and leads. */
import type { Kysely } from 'kysely';
import type { Dialect } from '../index.js';

export function core(dialect: Dialect) {
  const bigint = dialect === 'postgres' ? 'bigint' : 'integer';
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('companies')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('created_at', bigint, (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('campaigns')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('predial_url', 'text')
        .addColumn('predial_secret', 'text')
        .addColumn('timezone', 'text', (c) => c.notNull().defaultTo('UTC'))
        .addColumn('hours', 'text', (c) => c.notNull().defaultTo('mon-fri 09:00-17:00'))
        .addColumn('local_window', 'text', (c) => c.notNull().defaultTo('08:00-21:00'))
        .addColumn('max_attempts', 'integer', (c) => c.notNull().defaultTo(3))
        .addColumn('retry_delay_ms', bigint, (c) => c.notNull().defaultTo(30 * 60 * 1000))
        .addColumn('concurrency', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('provider', 'text', (c) => c.notNull().defaultTo('simulate'))
        .addColumn('provider_url', 'text')
        .addColumn('simulate_success', 'real', (c) => c.notNull().defaultTo(0.5))
        .addColumn('created_at', bigint, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('campaigns_company').on('campaigns').column('company_id').execute();
      await db.schema
        .createTable('api_keys')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id'))
        .addColumn('campaign_id', 'text', (c) => c.references('campaigns.id'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('scope', 'text', (c) => c.notNull())
        .addColumn('key_hash', 'text', (c) => c.notNull().unique())
        .addColumn('created_at', bigint, (c) => c.notNull())
        .addColumn('revoked_at', bigint)
        .addColumn('last_used_at', bigint)
        .execute();
      await db.schema.createIndex('api_keys_company').on('api_keys').column('company_id').execute();
      await db.schema
        .createTable('leads')
        .addColumn('seq', dialect === 'postgres' ? 'bigint' : 'integer', (c) =>
          dialect === 'postgres'
            ? c.primaryKey().generatedAlwaysAsIdentity()
            : // AUTOINCREMENT: SQLite would otherwise reuse the highest seq after a
              // delete, and a client syncing with an old cursor would miss the new lead.
              c.primaryKey().autoIncrement(),
        )
        .addColumn('id', 'text', (c) => c.notNull().unique())
        .addColumn('campaign_id', 'text', (c) => c.notNull().references('campaigns.id'))
        .addColumn('phone_number', 'text')
        .addColumn('external_id', 'text')
        .addColumn('metadata', 'text', (c) => c.notNull().defaultTo('{}'))
        .addColumn('status', 'text', (c) => c.notNull().defaultTo('raw'))
        .addColumn('scheduled_for', 'text')
        .addColumn('priority', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', bigint, (c) => c.notNull())
        .execute();
      // The two deduplication rules, enforced by the database so that concurrent
      // requests can never create a duplicate (NULLs never collide).
      await db.schema
        .createIndex('leads_campaign_external_id')
        .on('leads')
        .columns(['campaign_id', 'external_id'])
        .unique()
        .execute();
      await db.schema
        .createIndex('leads_campaign_phone_number')
        .on('leads')
        .columns(['campaign_id', 'phone_number'])
        .unique()
        .execute();
      // Keyset pagination: (campaign_id, seq) and, with a status filter, (campaign_id, status, seq).
      await db.schema.createIndex('leads_campaign_seq').on('leads').columns(['campaign_id', 'seq']).execute();
      await db.schema
        .createIndex('leads_campaign_status_seq')
        .on('leads')
        .columns(['campaign_id', 'status', 'seq'])
        .execute();
    },
  };
}
