/**
 * What holds a campaign's concurrency slots, and when a call nobody follows
 * any more is stale. A call's slot is normally its lead, held under a live
 * claim; a lead deleted during its call takes that with it while the call
 * goes on (or is awaited from a provider). Such an attempt holds its slot by
 * itself: until its deadline, and, while it is `open` (its dialer places and
 * follows it), while its dialer's heartbeat is live. Counted as a lead's slot
 * only, a still-ringing call whose lead was deleted held none, and a
 * --concurrency 1 campaign rang twice.
 */
import { type RawBuilder, sql } from 'kysely';
import type { Db, Executor } from '../../db/index.js';
import { DIALER_LIVE_MS } from '../dialers.js';

/**
 * Over `a`: its dialer has a heartbeat row and stopped beating. A dialer with
 * no row (`--once` writes none; a stopped one removes its own) is not judged
 * dead on that alone: its attempt waits for its deadline, the side that never
 * frees a slot or a number while a call may ring.
 */
const workerSilent = (now: number) =>
  sql`exists (select 1 from dialers d where d.id = a.worker and d.heartbeat_at < ${now - DIALER_LIVE_MS})`;

/** over `a`, an attempt not closed whose lead is gone: its call is over as far as anyone can tell (the complement of the count below) */
export const orphanStale = (now: number): RawBuilder<unknown> =>
  sql`(a.deadline_at is null or a.deadline_at <= ${now} or (a.state = 'open' and ${workerSilent(now)}))`;

/**
 * The statement of QueueStore.inFlight (a test reads its plan), counted in
 * two: the campaign's calls in flight are leads held under a live claim (the small
 * leads_claimed index), and attempts not closed whose lead is gone. Those are
 * read from attempts_pending (migration 0024), the campaign's attempts not
 * closed, a few per slot, each probed in the leads' id index; `state <> 'closed'`
 * is a literal so that the partial index matches in any plan, a generic one
 * too. SQLite is told the index: with an equality on campaign_id it would
 * otherwise walk the campaign's whole call history in attempts_campaign_started
 * (as PostgreSQL did when its statistics predated that history, migration 0024).
 */
export function inFlightStatement(db: Db, campaignId: string, now: number): RawBuilder<{ held: number; orphaned: number }> {
  const open = db.dialect === 'sqlite' ? sql`attempts a indexed by attempts_pending` : sql`attempts a`;
  // next_attempt_at as claims.ts's iso() writes it (not imported: claims.ts imports this file)
  return sql<{ held: number; orphaned: number }>`select
    (select count(*) from leads where campaign_id = ${campaignId} and claimed_by is not null
      and next_attempt_at > ${new Date(now).toISOString()}) as held,
    (select count(*) from ${open} where a.state <> 'closed' and a.campaign_id = ${campaignId}
      and not exists (select 1 from leads l where l.id = a.lead_id) and not ${orphanStale(now)}) as orphaned`;
}

export async function inFlightCount(db: Db, ex: Executor, campaignId: string, now: number): Promise<number> {
  const { rows } = await inFlightStatement(db, campaignId, now).execute(ex);
  return Number(rows[0]?.held ?? 0) + Number(rows[0]?.orphaned ?? 0);
}
