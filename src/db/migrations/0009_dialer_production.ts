/**
 * The dialer in production:
 *
 * - attempts are written before the call is placed: each has an `attempt_id`
 *   sent to the provider, a `state` (open while the dialer places it,
 *   accepted while an asynchronous outcome is awaited, closed), what closed it, the
 *   claim it was made under (worker, claimed_at: the fence for every later
 *   write), its company (outcomes are reported with a key of that company),
 *   the provider's call id, whether it `counts` (a call never placed does
 *   not), its duration, and the instant an open attempt closes as unknown.
 *   `finished_at` and `outcome` are empty while it is open. Existing rows
 *   keep their history as closed attempts with ids `at_legacy_<n>`.
 * - campaigns: the call timeout, retry delays per outcome, a pause (with its
 *   reason) and the run of calls in a row that could not be placed.
 * - dialers: one row per running dialer, its heartbeat.
 * - events: the transactional outbox. One row per change (a bulk is one row
 *   whose `items` hold one entry per lead), written in the same transaction
 *   as the change; the dialer reads it to learn of new leads at once, and
 *   webhook deliveries and the pull API read it too. Items hold no phone
 *   numbers: they are read from the leads and attempts when an event is
 *   expanded, so deleting a lead removes its number from its events too.
 *
 * SQLite cannot drop NOT NULL, so its attempts table is rebuilt (the
 * documented create-copy-drop-rename); PostgreSQL alters the table in place.
 */
import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../index.js';

export function dialerProduction(dialect: Dialect) {
  const pg = dialect === 'postgres';
  const bigint = pg ? 'bigint' : 'integer';
  return {
    async up(db: Kysely<any>) {
      if (pg) {
        await sql`alter table attempts alter column finished_at drop not null, alter column outcome drop not null,
          add column attempt_id text, add column company_id text, add column state text not null default 'closed',
          add column closed_by text, add column counts integer not null default 1, add column duration_seconds double precision,
          add column provider_call_id text, add column provider_control text, add column claimed_at bigint,
          add column deadline_at bigint`.execute(db);
        await sql`update attempts set attempt_id = 'at_legacy_' || id,
          company_id = coalesce((select company_id from campaigns c where c.id = attempts.campaign_id), '')`.execute(db);
        await sql`alter table attempts alter column attempt_id set not null, alter column company_id set not null`.execute(db);
      } else {
        await sql`create table attempts_new (
          id integer primary key autoincrement,
          attempt_id text not null,
          lead_id text not null,
          campaign_id text not null,
          company_id text not null,
          attempt integer not null,
          started_at integer not null,
          finished_at integer,
          success integer not null default 0,
          outcome text,
          phone_number text,
          reason text,
          worker text not null,
          state text not null default 'closed',
          closed_by text,
          counts integer not null default 1,
          duration_seconds real,
          provider_call_id text,
          provider_control text,
          claimed_at integer,
          deadline_at integer)`.execute(db);
        await sql`insert into attempts_new (id, attempt_id, lead_id, campaign_id, company_id, attempt, started_at, finished_at,
            success, outcome, phone_number, reason, worker)
          select a.id, 'at_legacy_' || a.id, a.lead_id, a.campaign_id, coalesce(c.company_id, ''), a.attempt, a.started_at,
            a.finished_at, a.success, a.outcome, a.phone_number, a.reason, a.worker
          from attempts a left join campaigns c on c.id = a.campaign_id`.execute(db);
        await sql`drop table attempts`.execute(db);
        await sql`alter table attempts_new rename to attempts`.execute(db);
        await sql`create index attempts_lead on attempts (lead_id, attempt)`.execute(db);
        await sql`create index attempts_campaign_started on attempts (campaign_id, started_at)`.execute(db);
      }
      await sql`create unique index attempts_attempt_id on attempts (attempt_id)`.execute(db);
      // The attempts not closed: few at any time (at most the calls in flight),
      // read by the claim (a lead with one is never claimed) and by recovery.
      await sql`create index attempts_open on attempts (lead_id) where state <> 'closed'`.execute(db);
      await sql`create index attempts_provider_call on attempts (provider_call_id) where provider_call_id is not null`.execute(db);

      await db.schema.alterTable('campaigns').addColumn('call_timeout_ms', bigint, (c) => c.notNull().defaultTo(30 * 60_000)).execute();
      await db.schema.alterTable('campaigns').addColumn('retry_delays', 'text', (c) => c.notNull().defaultTo('')).execute();
      await db.schema.alterTable('campaigns').addColumn('paused_at', bigint).execute();
      await db.schema.alterTable('campaigns').addColumn('paused_reason', 'text').execute();
      await db.schema.alterTable('campaigns').addColumn('not_placed_streak', 'integer', (c) => c.notNull().defaultTo(0)).execute();

      // The claims in flight per campaign (campaign-wide concurrency): a range
      // of this index, holding only the leads held right now.
      await sql`create index leads_claimed on leads (campaign_id, next_attempt_at) where claimed_by is not null`.execute(db);

      await db.schema
        .createTable('dialers')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('host', 'text', (c) => c.notNull())
        .addColumn('pid', 'integer', (c) => c.notNull())
        .addColumn('campaigns', 'text', (c) => c.notNull())
        .addColumn('started_at', bigint, (c) => c.notNull())
        .addColumn('heartbeat_at', bigint, (c) => c.notNull())
        .addColumn('calls_in_flight', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('last_claim_at', bigint)
        .execute();

      await db.schema
        .createTable('events')
        .addColumn('id', bigint, (c) => (pg ? c.primaryKey().generatedAlwaysAsIdentity() : c.primaryKey().autoIncrement()))
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('company_id', 'text', (c) => c.notNull())
        .addColumn('campaign_id', 'text')
        .addColumn('created_at', bigint, (c) => c.notNull())
        .addColumn('count', 'integer', (c) => c.notNull())
        .addColumn('items', 'text', (c) => c.notNull())
        .execute();
      await sql`create index events_campaign on events (campaign_id, id)`.execute(db);
      await sql`create index events_company on events (company_id, id)`.execute(db);
      await sql`create index events_created on events (created_at)`.execute(db);
    },
  };
}
