/**
 * A lead's metadata.timezone now narrows its number's zones instead of
 * replacing them (src/dialer/phone-timezone.ts): the leads that have one
 * forget their stored zones, and the dialer works them out again before it
 * next claims from their campaign. Frozen: plain SQL.
 */
import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../index.js';

export function timezoneNarrows(_dialect: Dialect) {
  return {
    async up(db: Kysely<any>) {
      await sql`update leads set local_zones = null where metadata like '%"timezone"%' and phone_number is not null`.execute(db);
    },
  };
}
