/**
 * Calls a platform accepted and later reported not placed (a Vapi call that ended with
 * call.start.error-subscription-insufficient-credits, say): how many in a row, since when, per
 * campaign, so that a platform that accepts every call and places none pauses its campaign as
 * one refusing them outright does (src/dialer/not-placed.ts, docs/dialer.md "Calls that cannot be
 * placed"). A reported outcome of a placed call ends the run.
 *
 * Frozen: plain SQL.
 */
import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../index.js';

export function lateNotPlaced(dialect: Dialect) {
  return {
    async up(db: Kysely<any>) {
      const bigint = dialect === 'postgres' ? 'bigint' : 'integer';
      await sql`alter table campaigns add column late_not_placed integer not null default 0`.execute(db);
      await sql`alter table campaigns add column late_not_placed_since ${sql.raw(bigint)}`.execute(db);
    },
  };
}
