/**
 * Campaigns that call through an AI voice platform (Vapi, Retell, Bland,
 * Twilio; src/dialer/providers/platforms): the platform's API key, its
 * options (a JSON object, checked by the platform's adapter when the campaign
 * is created or updated), an API base URL other than the platform's public
 * one, and the secret the platform signs its webhooks with. The secrets are
 * sealed when SECRET_KEY is set (src/crypto/secrets.ts). Existing campaigns
 * get none of them and keep their provider. The platforms' webhooks find
 * their attempt by the platform's call id, hence its index. A campaign may
 * also cap the calls it starts per second (the platforms' own limits, e.g.
 * Twilio's one call per second); none by default.
 */
import type { Kysely } from 'kysely';
import type { Dialect } from '../index.js';

export function platformProviders(_dialect: Dialect) {
  return {
    async up(db: Kysely<any>) {
      await db.schema.alterTable('campaigns').addColumn('provider_secret', 'text').execute();
      await db.schema
        .alterTable('campaigns')
        .addColumn('provider_options', 'text', (c) => c.notNull().defaultTo('{}'))
        .execute();
      await db.schema.alterTable('campaigns').addColumn('provider_base_url', 'text').execute();
      await db.schema.alterTable('campaigns').addColumn('provider_webhook_secret', 'text').execute();
      await db.schema.alterTable('campaigns').addColumn('calls_per_second', 'real').execute();
      await db.schema.createIndex('attempts_provider_call_id').on('attempts').column('provider_call_id').execute();
    },
  };
}
