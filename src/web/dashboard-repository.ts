/**
 * The dashboard's read queries. Every one takes the signed-in user's company
 * and filters by it in SQL, so an id from another company finds nothing.
 */
import { sql } from 'kysely';
import type { Executor } from '../db/index.js';
import type { CampaignTable, LeadTable } from '../db/schema.js';

export const campaignsOf = (ex: Executor, companyId: string): Promise<CampaignTable[]> =>
  ex.selectFrom('campaigns').selectAll().where('company_id', '=', companyId).orderBy('created_at').orderBy('id').execute();

export const campaignOf = (ex: Executor, companyId: string, campaignId: string): Promise<CampaignTable | undefined> =>
  ex.selectFrom('campaigns').selectAll().where('id', '=', campaignId).where('company_id', '=', companyId).executeTakeFirst();

export interface StatusCount {
  campaign_id: string;
  status: LeadTable['status'];
  n: number;
}

/** lead counts per campaign and status (of one campaign, if given); served by the (campaign_id, status, seq) index */
export async function statusCounts(ex: Executor, companyId: string, campaignId?: string): Promise<StatusCount[]> {
  const { rows } = await sql<StatusCount>`
    select l.campaign_id, l.status, count(*) as n
    from campaigns c join leads l on l.campaign_id = c.id
    where c.company_id = ${companyId} ${campaignId === undefined ? sql`` : sql`and c.id = ${campaignId}`}
    group by l.campaign_id, l.status`.execute(ex);
  return rows.map((r) => ({ ...r, n: Number(r.n) }));
}

export type LeadRow = Omit<LeadTable, 'seq'> & { extra_attempts?: number };

const LEAD_COLUMNS = [
  'id',
  'campaign_id',
  'phone_number',
  'external_id',
  'metadata',
  'status',
  'scheduled_for',
  'priority',
  'attempts',
  'created_at',
] as const;

/** with extra_attempts: the attempts recycling granted beyond the campaign's maximum */
export const leadOf = (ex: Executor, campaignId: string, leadId: string): Promise<LeadRow | undefined> =>
  ex
    .selectFrom('leads')
    .select([...LEAD_COLUMNS, 'extra_attempts'])
    .where('id', '=', leadId)
    .where('campaign_id', '=', campaignId)
    .executeTakeFirst();

/** exact match on either identifier: both are unique per campaign and indexed */
export const leadsByIdentifier = (ex: Executor, campaignId: string, value: string): Promise<LeadRow[]> =>
  ex
    .selectFrom('leads')
    .select(LEAD_COLUMNS)
    .where('campaign_id', '=', campaignId)
    .where((eb) => eb.or([eb('external_id', '=', value), eb('phone_number', '=', value)]))
    .orderBy('seq')
    .execute();
