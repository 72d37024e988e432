/**
 * Before a batch of calls opens: the companies of its campaigns (a number is
 * busy, and capped, company-wide), and on PostgreSQL a transaction lock per
 * number, so that two dialers opening calls to one number take turns and the
 * second sees the first's attempt.
 */
import { sql } from 'kysely';
import type { Db, Executor } from '../../db/index.js';

export interface CompanyOfCampaign {
  /** the campaign's id */
  id: string;
  company_id: string;
  call_caps: string;
}

/** `${companyId} ${phoneNumber}`: a number as the company's calls share it */
export const numberKey = (companyId: string, phoneNumber: string) => `${companyId} ${phoneNumber}`;

/**
 * The companies of the calls' campaigns; on PostgreSQL the same statement
 * takes the numbers' locks (one round trip where the lookup and the locks
 * took two: bench row 7), each number once and in one order (byte order of
 * its key), so that two dialers' batches never wait on each other in a
 * cycle. The aggregate reads the sorted keys in order, taking each lock as it
 * comes (what PostgreSQL does with a sorted subquery it cannot flatten, though
 * SQL does not promise it; a deadlock it caused would be retried, db/retry.ts);
 * the statement after it reads with a snapshot taken once they are all held.
 */
export async function companiesLockingNumbers(
  db: Db,
  ex: Executor,
  calls: readonly { campaignId: string; phoneNumber: string }[],
): Promise<CompanyOfCampaign[]> {
  const campaignIds = [...new Set(calls.map((c) => c.campaignId))];
  if (db.dialect !== 'postgres')
    return ex
      .selectFrom('campaigns as p')
      .innerJoin('companies as c', 'c.id', 'p.company_id')
      .select(['p.id', 'c.id as company_id', 'c.call_caps'])
      .where('p.id', 'in', campaignIds)
      .execute();
  const { rows } = await sql<CompanyOfCampaign>`
    with co as (
      select p.id, c.id as company_id, c.call_caps from campaigns p join companies c on c.id = p.company_id
      where p.id = any(${campaignIds}::text[])
    ),
    locked as (
      select count(pg_advisory_xact_lock(hashtext(k))) as n from (
        select distinct ('number:' || co.company_id || ' ' || n.phone) collate "C" as k
        from unnest(${calls.map((c) => c.campaignId)}::text[], ${calls.map((c) => c.phoneNumber)}::text[]) as n(campaign_id, phone)
        join co on co.id = n.campaign_id
        order by k
      ) s
    )
    select co.id, co.company_id, co.call_caps, (select n from locked) as locked from co`.execute(ex);
  return rows.map(({ id, company_id, call_caps }) => ({ id, company_id, call_caps }));
}
