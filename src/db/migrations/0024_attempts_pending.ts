/**
 * The attempts not closed, by campaign: what a claim counts in the campaign's
 * slots (store/shared/in-flight.ts: calls whose lead was deleted;
 * store/shared/claims.ts: outcomes awaited from a provider), a few per slot
 * at any time however long the campaign's history.
 *
 * attempts_open (0009) holds the same attempts by lead, so a count by
 * campaign had to read all of them, and the planner chose between that and
 * the campaign's whole history (attempts_campaign_started) by statistics. Where
 * those were taken before the campaign's calls (autovacuum off, or not come
 * round yet) it read the history: in bench row 7 every claim read 13,000
 * attempts (14 ms, under the campaign's lock) after 13,000 calls. Keyed by
 * campaign, this index is the cheaper one whatever the statistics say. It
 * replaces attempts_accepted (0019), whose attempts it holds too: the table
 * keeps its number of indexes, which every attempt's writes pay for.
 *
 * Frozen: plain SQL.
 */
import { type Kysely, sql } from 'kysely';

export function attemptsPending() {
  return {
    async up(db: Kysely<any>) {
      await sql`create index attempts_pending on attempts (campaign_id, state) where state <> 'closed'`.execute(db);
      await sql`drop index attempts_accepted`.execute(db);
    },
  };
}
