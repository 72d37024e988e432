/**
 * QueueStore.upcoming, for the dashboard's Next up: the claim's order read
 * without claiming. Like the claim it walks the priorities present, highest
 * first (one probe of the due index each), and reads each one's due range in
 * order; the leads due later come from the rest of each range, soonest first.
 * Nothing is filtered out (do-not-call, consent, local window, held): the
 * caller explains each lead instead.
 */
import { type RawBuilder, sql } from 'kysely';
import type { Executor } from '../../db/index.js';
import type { DialerLeadRow } from '../queue.js';
import { plannedWithValues } from '../../db/planned.js';

export async function upcoming(
  ex: Executor,
  /** the due time as the due index spells it (migration 0002) */
  due: RawBuilder<unknown>,
  campaignId: string,
  now: number,
  limit: number,
): Promise<DialerLeadRow[]> {
  // ISO 8601 UTC, as the due columns hold it
  const at = new Date(now).toISOString();
  const claimable = sql`campaign_id = ${campaignId} and status in ('raw', 'attempting')`;
  const dueNow: DialerLeadRow[] = [];
  const later: DialerLeadRow[] = [];
  let below: number | null = null;
  for (;;) {
    const under: RawBuilder<unknown> = below === null ? sql`` : sql`and priority < ${below}`;
    const top: { p: number | null } | undefined = (
      await sql<{ p: number | null }>`select max(priority) as p from leads where ${claimable} ${under}`.execute(ex)
    ).rows[0];
    if (top?.p === null || top?.p === undefined) break;
    const priority = Number(top.p);
    below = priority;
    const read = async (range: RawBuilder<unknown>, n: number) =>
      (
        await sql<DialerLeadRow>`${plannedWithValues} select * from leads where ${claimable} and priority = ${priority} and ${range}
          order by ${due}, seq limit ${n}`.execute(ex)
      ).rows;
    // each priority's first `limit` later leads: enough, whichever priorities the soonest come from
    if (dueNow.length < limit) dueNow.push(...(await read(sql`${due} <= ${at}`, limit - dueNow.length)));
    later.push(...(await read(sql`${due} > ${at}`, limit)));
  }
  const dueOf = (l: DialerLeadRow) => l.next_attempt_at ?? l.scheduled_for ?? '';
  later.sort((a, b) => dueOf(a).localeCompare(dueOf(b)) || b.priority - a.priority || Number(a.seq) - Number(b.seq));
  return [...dueNow, ...later].slice(0, limit);
}
