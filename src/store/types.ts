/** The Store: every table's owner, and the database they share. */
import type { Db, WriteTxOptions } from '../db/index.js';
import type { AttemptStore } from './attempts.js';
import type { CampaignStore } from './campaigns.js';
import type { CompanyStore } from './companies.js';
import type { DialerStore } from './dialers.js';
import type { DncStore } from './dnc.js';
import type { EventStore } from './events.js';
import type { KeyStore } from './keys.js';
import type { LeadStore } from './leads.js';
import type { PacingStore } from './pacing.js';
import type { QueueStore } from './queue.js';
import type { SessionStore } from './sessions.js';
import type { UserStore } from './users.js';
import type { WebhookStore } from './webhooks.js';
import type { ZoneStore } from './zones.js';

export interface Tables {
  readonly companies: CompanyStore;
  readonly campaigns: CampaignStore;
  readonly keys: KeyStore;
  readonly users: UserStore;
  readonly sessions: SessionStore;
  readonly leads: LeadStore;
  readonly queue: QueueStore;
  readonly attempts: AttemptStore;
  readonly zones: ZoneStore;
  readonly events: EventStore;
  readonly dialers: DialerStore;
  readonly pacing: PacingStore;
  readonly webhooks: WebhookStore;
  readonly dnc: DncStore;
}

/** the tables bound to one write transaction */
export interface TxStore extends Tables {
  /** already in a transaction: runs fn in it (options such as a lock are the outer transaction's business) */
  transaction<T>(fn: (tx: TxStore) => Promise<T>, opts?: WriteTxOptions): Promise<T>;
}

/**
 * The tables, and the database they live in. The `Db` part (the Kysely
 * handle, the dialect) is for src/store itself and for tests and benchmarks
 * that inspect rows; the rest of src/ goes through the tables.
 */
export interface Store extends Db, Tables {
  /**
   * One write transaction with every table bound to it: BEGIN IMMEDIATE on
   * SQLite; on PostgreSQL after the advisory lock `lock` names, retried whole
   * when it loses a deadlock. `bounded`: see Db.writeTx.
   */
  transaction<T>(fn: (tx: TxStore) => Promise<T>, opts?: WriteTxOptions): Promise<T>;
  /** the database's own random key (src/store/digests.ts), which purpose-made keys are derived from */
  databaseKey(): Promise<Buffer>;
}
