/** Companies and campaigns, as the operator CLI creates them. */
import type { Db } from '../db/index.js';
import type { CampaignTable } from '../db/schema.js';
import { AppError } from '../errors.js';
import { newId } from '../ids.js';
import { type CampaignSettings, checkSettings, DEFAULT_SETTINGS } from './settings.js';

export type { CampaignSettings } from './settings.js';
export type CampaignRow = CampaignTable;

export async function createCompany(db: Db, name: string, now = Date.now()): Promise<{ companyId: string }> {
  const companyId = newId('co_');
  await db.kysely.insertInto('companies').values({ id: companyId, name, created_at: now }).execute();
  return { companyId };
}

/** Settings are parsed already (settings.ts parseSetting); this checks how they combine. */
export async function createCampaign(
  db: Db,
  input: { companyId: string; name: string } & CampaignSettings,
  now = Date.now(),
): Promise<{ campaignId: string }> {
  const { companyId, name, ...given } = input;
  const settings = definedOnly(given);
  checkSettings({ provider: DEFAULT_SETTINGS.provider, provider_url: null, ...settings });
  const company = await db.kysely.selectFrom('companies').select('id').where('id', '=', companyId).executeTakeFirst();
  if (!company) throw new AppError('not_found', `company ${companyId} not found`);
  const campaignId = newId('cp_');
  await db.kysely
    .insertInto('campaigns')
    .values({ id: campaignId, company_id: companyId, name, created_at: now, ...settings } as CampaignTable)
    .execute();
  return { campaignId };
}

/** Changes only the settings given; the others keep their current value. */
export async function updateCampaign(db: Db, campaignId: string, settings: CampaignSettings): Promise<CampaignRow> {
  const values = definedOnly(settings);
  return db.writeTx(async (tx) => {
    const current = await tx.selectFrom('campaigns').selectAll().where('id', '=', campaignId).executeTakeFirst();
    if (!current) throw new AppError('not_found', `campaign ${campaignId} not found`);
    const next = { ...current, ...values };
    checkSettings(next);
    if (Object.keys(values).length > 0) await tx.updateTable('campaigns').set(values).where('id', '=', campaignId).execute();
    return next;
  });
}

export function getCampaign(db: Db, campaignId: string): Promise<CampaignRow | undefined> {
  return db.kysely.selectFrom('campaigns').selectAll().where('id', '=', campaignId).executeTakeFirst();
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
