/** Companies and campaigns, as the operator CLI creates them. */
import type { Db } from '../db/index.js';
import type { CampaignTable } from '../db/schema.js';
import { AppError } from '../errors.js';
import { newId } from '../ids.js';

export type CampaignRow = CampaignTable;
/** the settings an operator may set; every one has a default */
export type CampaignSettings = Partial<
  Pick<
    CampaignTable,
    | 'predial_url'
    | 'predial_secret'
    | 'timezone'
    | 'hours'
    | 'local_window'
    | 'max_attempts'
    | 'retry_delay_ms'
    | 'concurrency'
    | 'provider'
    | 'provider_url'
    | 'simulate_success'
  >
>;

export async function createCompany(db: Db, name: string, now = Date.now()): Promise<{ companyId: string }> {
  const companyId = newId('co_');
  await db.kysely.insertInto('companies').values({ id: companyId, name, created_at: now }).execute();
  return { companyId };
}

export async function createCampaign(
  db: Db,
  input: { companyId: string; name: string } & CampaignSettings,
  now = Date.now(),
): Promise<{ campaignId: string }> {
  const { companyId, name, ...settings } = input;
  const company = await db.kysely.selectFrom('companies').select('id').where('id', '=', companyId).executeTakeFirst();
  if (!company) throw new AppError('not_found', `company ${companyId} not found`);
  const campaignId = newId('cp_');
  await db.kysely
    .insertInto('campaigns')
    .values({ id: campaignId, company_id: companyId, name, created_at: now, ...definedOnly(settings) } as CampaignTable)
    .execute();
  return { campaignId };
}

export async function updateCampaign(db: Db, campaignId: string, settings: CampaignSettings): Promise<CampaignRow> {
  const values = definedOnly(settings);
  if (Object.keys(values).length > 0) {
    await db.kysely.updateTable('campaigns').set(values).where('id', '=', campaignId).execute();
  }
  const row = await getCampaign(db, campaignId);
  if (!row) throw new AppError('not_found', `campaign ${campaignId} not found`);
  return row;
}

export function getCampaign(db: Db, campaignId: string): Promise<CampaignRow | undefined> {
  return db.kysely.selectFrom('campaigns').selectAll().where('id', '=', campaignId).executeTakeFirst();
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
