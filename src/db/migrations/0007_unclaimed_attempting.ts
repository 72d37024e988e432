/**
 * Leads that earlier versions left `attempting` with no attempt made and no
 * claim held go back to `raw`. Before the lifecycle's `release` move, a claim
 * given back without a call (a shutdown, or a lead taken outside the called
 * person's local window and deferred) cleared the claim but kept the status
 * the claim had set. Today such a claim restores the status it found, so a
 * lead can only be attempting with 0 attempts while a worker holds it.
 *
 * The move is the lifecycle's own (claim from raw, then release: attempting
 * back to raw), spelt out here because a released migration is frozen and
 * imports no domain code. A lead still claimed is left to its worker, and its
 * due time is cleared because the deferral's "window opens at" is now checked
 * at claim time instead. One pass over `leads` (no index covers `attempts`), once.
 */
import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../index.js';

export function unclaimedAttempting(_dialect: Dialect) {
  return {
    async up(db: Kysely<any>) {
      await sql`update leads set status = 'raw', next_attempt_at = null
        where status = 'attempting' and attempts = 0 and claimed_by is null`.execute(db);
    },
  };
}
