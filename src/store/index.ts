/**
 * openStore(config) → the Store: one owner per table, each an interface with
 * a SQLite and a PostgreSQL implementation (or one Kysely implementation
 * where the SQL is the same on both), picked here, once, when the database
 * is opened. Nothing outside src/db and src/store knows which database it
 * has; test/architecture.test.ts keeps it so.
 */
import type { DatabaseConfig } from '../config.js';
import { createDb, type Db, type DbOptions, type Executor } from '../db/index.js';
import { KyselyAttemptStore } from './attempts.js';
import { KyselyCampaignStore } from './campaigns.js';
import { KyselyCompanyStore } from './companies.js';
import { KyselyDialerStore } from './dialers.js';
import { databaseKey, digester } from './digests.js';
import { KyselyDncStore } from './dnc.js';
import { type EventStore, KyselyEventStore, PostgresEventStore } from './events.js';
import { KyselyKeyStore } from './keys.js';
import type { LeadStore } from './leads.js';
import { KyselyPacingStore } from './pacing.js';
import { PostgresLeadStore } from './postgres/leads.js';
import { PostgresQueueStore } from './postgres/queue.js';
import { PostgresZoneStore } from './postgres/zones.js';
import type { QueueStore } from './queue.js';
import { KyselySessionStore } from './sessions.js';
import { SqliteLeadStore } from './sqlite/leads.js';
import { SqliteQueueStore } from './sqlite/queue.js';
import { SqliteZoneStore } from './sqlite/zones.js';
import type { Store, Tables, TxStore } from './types.js';
import { KyselyUserStore } from './users.js';
import { KyselyWebhookStore, PostgresWebhookStore, type WebhookStore } from './webhooks.js';
import type { ZoneStore } from './zones.js';

export type { Store } from './types.js';

/** the implementations that differ between the databases */
interface DialectParts {
  leads(db: Db, ex: Executor): LeadStore;
  queue(db: Db, ex: Executor): QueueStore;
  zones(ex: Executor): ZoneStore;
  events(ex: Executor): EventStore;
  webhooks(ex: Executor): WebhookStore;
}

const PARTS: Record<Db['dialect'], DialectParts> = {
  sqlite: {
    leads: (db, ex) => new SqliteLeadStore(db, ex, new KyselyEventStore(ex)),
    queue: (db, ex) => new SqliteQueueStore(db, ex, new KyselyEventStore(ex)),
    zones: (ex) => new SqliteZoneStore(ex),
    events: (ex) => new KyselyEventStore(ex),
    webhooks: (ex) => new KyselyWebhookStore(ex),
  },
  postgres: {
    leads: (db, ex) => new PostgresLeadStore(db, ex, new PostgresEventStore(ex)),
    queue: (db, ex) => new PostgresQueueStore(db, ex, new PostgresEventStore(ex)),
    zones: (ex) => new PostgresZoneStore(ex),
    events: (ex) => new PostgresEventStore(ex),
    webhooks: (ex) => new PostgresWebhookStore(ex),
  },
};

function tables(db: Db, ex: Executor, parts: DialectParts): Tables {
  return {
    companies: new KyselyCompanyStore(ex),
    campaigns: new KyselyCampaignStore(ex, parts.events(ex)),
    keys: new KyselyKeyStore(ex),
    users: new KyselyUserStore(ex),
    sessions: new KyselySessionStore(ex),
    attempts: new KyselyAttemptStore(ex, digester(db, ex)),
    dialers: new KyselyDialerStore(ex, db.dialect),
    pacing: new KyselyPacingStore(ex, db.dialect),
    leads: parts.leads(db, ex),
    events: parts.events(ex),
    webhooks: parts.webhooks(ex),
    queue: parts.queue(db, ex),
    zones: parts.zones(ex),
    dnc: new KyselyDncStore(ex, parts.events(ex)),
  };
}

/** The store over a database already opened. */
export function storeOn(db: Db): Store {
  const parts = PARTS[db.dialect];
  const inTx = (tx: Executor): TxStore => {
    const bound: TxStore = { ...tables(db, tx, parts), transaction: (fn) => fn(bound) };
    return bound;
  };
  return {
    ...db,
    ...tables(db, db.kysely, parts),
    transaction: (fn, o) => db.writeTx((tx) => fn(inTx(tx)), o),
    databaseKey: () => databaseKey(db, db.kysely),
  };
}

export function openStore(config: DatabaseConfig, opts: DbOptions = {}): Store {
  return storeOn(createDb(config, opts));
}
