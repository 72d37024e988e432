/**
 * The dashboard's reads of the dialer's attempts log. Callers pass campaign
 * ids already checked to belong to the signed-in user's company.
 */
import type { Executor } from '../db/index.js';
import type { AttemptTable } from '../db/schema.js';

export type AttemptRow = Omit<AttemptTable, 'id'> & { id: number };

/** per campaign: attempts started at or after `since`; a range of attempts_campaign_started */
export async function callsSince(ex: Executor, campaignIds: readonly string[], since: number) {
  if (campaignIds.length === 0) return [];
  const rows = await ex
    .selectFrom('attempts')
    .select((eb) => ['campaign_id', eb.fn.countAll<number>().as('calls'), eb.fn.sum<number>('success').as('successes')])
    .where('campaign_id', 'in', campaignIds)
    .where('started_at', '>=', since)
    .groupBy('campaign_id')
    .execute();
  return rows.map((r) => ({ campaignId: r.campaign_id, calls: Number(r.calls), successes: Number(r.successes ?? 0) }));
}

/**
 * The latest attempts across campaigns: `limit` per campaign from the index,
 * merged here, so the cost does not grow with the campaigns' history.
 */
export async function lastAttempts(ex: Executor, campaignIds: readonly string[], limit: number): Promise<AttemptRow[]> {
  const perCampaign = await Promise.all(
    campaignIds.map((id) =>
      ex.selectFrom('attempts').selectAll().where('campaign_id', '=', id).orderBy('started_at', 'desc').orderBy('id', 'desc').limit(limit).execute(),
    ),
  );
  return perCampaign
    .flat()
    .map((r) => ({ ...r, id: Number(r.id), started_at: Number(r.started_at), finished_at: Number(r.finished_at) }))
    .sort((a, b) => b.started_at - a.started_at || b.id - a.id)
    .slice(0, limit);
}

export async function leadAttempts(ex: Executor, campaignId: string, leadId: string): Promise<AttemptRow[]> {
  const rows = await ex
    .selectFrom('attempts')
    .selectAll()
    .where('lead_id', '=', leadId)
    .where('campaign_id', '=', campaignId)
    .orderBy('attempt', 'desc')
    .execute();
  return rows.map((r) => ({ ...r, id: Number(r.id), started_at: Number(r.started_at), finished_at: Number(r.finished_at) }));
}
