/**
 * The calls whose outcome a provider will report later (state 'accepted')
 * hold their campaign's slots; a dialer counts them when a campaign is full
 * (store/shared/claims.ts, awaiting). That count read every attempt of the
 * campaign through attempts_campaign_started: 380 pages each time after
 * 15,000 calls in bench row 7, and a campaign's whole history in service.
 * The partial index holds only the accepted attempts, a handful at a time.
 *
 * Frozen: plain SQL.
 */
import { type Kysely, sql } from 'kysely';

export function attemptsAccepted() {
  return {
    async up(db: Kysely<any>) {
      await sql`create index attempts_accepted on attempts (campaign_id) where state = 'accepted'`.execute(db);
    },
  };
}
