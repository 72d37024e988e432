/** Companies and campaigns, as the operator CLI and the dashboard create them. */
import { forgetCampaign } from './cache.js';
import { type Secrets, secretsFor } from '../crypto/secrets.js';
import { AppError } from '../errors.js';
import { newId } from '../ids.js';
import type { CampaignRow } from '../store/campaigns.js';
import type { Store } from '../store/index.js';
import type { TxStore } from '../store/types.js';
import { type CampaignSettings, checkSettings, DEFAULT_SETTINGS } from './settings.js';

export type { CampaignSettings } from './settings.js';
export type { CampaignRow } from '../store/campaigns.js';

export async function createCompany(store: TxStore, name: string, now = Date.now()): Promise<{ companyId: string }> {
  const companyId = newId('co_');
  await store.companies.insert({ id: companyId, name, created_at: now });
  return { companyId };
}

/** a campaign's state that is not a setting, as it starts */
const NOT_PAUSED = { paused_at: null, paused_reason: null, not_placed_streak: 0, late_not_placed: 0, late_not_placed_since: null } as const;

/** Without SECRET_KEY: secrets are stored as given. */
const PLAIN = secretsFor(undefined);
const SEALED_COLUMNS = ['predial_secret', 'provider_secret', 'provider_webhook_secret'] as const;

/** Bound to the column and the campaign: a sealed value copied elsewhere does not open. */
const secretContext = (column: (typeof SEALED_COLUMNS)[number], campaignId: string) => `campaigns.${column}:${campaignId}`;

function sealed(values: CampaignSettings, campaignId: string, secrets: Secrets): CampaignSettings {
  const out = { ...values };
  for (const column of SEALED_COLUMNS) {
    const plain = out[column];
    if (typeof plain === 'string') out[column] = secrets.seal(plain, secretContext(column, campaignId));
  }
  return out;
}

/** The predial secret in plain text (it also signs the webhook provider's requests). */
export function predialSecret(row: Pick<CampaignRow, 'id' | 'predial_secret'>, secrets: Secrets): string | null {
  return row.predial_secret === null ? null : secrets.open(row.predial_secret, secretContext('predial_secret', row.id));
}

/** A platform campaign's secrets in plain text, for the dialer and the webhook route. */
export function providerSecrets(
  row: Pick<CampaignRow, 'id' | 'provider_secret' | 'provider_webhook_secret'>,
  secrets: Secrets,
): { secret: string | null; webhookSecret: string | null } {
  const open = (column: 'provider_secret' | 'provider_webhook_secret') => {
    const stored = row[column];
    return stored === null ? null : secrets.open(stored, secretContext(column, row.id));
  };
  return { secret: open('provider_secret'), webhookSecret: open('provider_webhook_secret') };
}

/**
 * Settings are parsed already (settings.ts parseSetting); this checks how
 * they combine, and seals the provider's secrets (SECRET_KEY, `secrets`).
 */
export async function createCampaign(
  store: TxStore,
  input: { companyId: string; name: string } & CampaignSettings,
  now = Date.now(),
  secrets: Secrets = PLAIN,
): Promise<{ campaignId: string }> {
  const { companyId, name, ...given } = input;
  // Every setting is written, the defaults from DEFAULT_SETTINGS: the columns'
  // own defaults (frozen in the migrations) never decide a new campaign.
  const row = { ...DEFAULT_SETTINGS, ...NO_SECRETS, ...definedOnly(given) };
  checkSettings(row);
  if (!(await store.companies.exists(companyId))) throw new AppError('not_found', `company ${companyId} not found`);
  const campaignId = newId('cp_');
  await store.campaigns.insert({
    id: campaignId,
    company_id: companyId,
    name,
    created_at: now,
    ...row,
    ...sealed(definedOnly(given), campaignId, secrets),
    ...NOT_PAUSED,
  });
  return { campaignId };
}

/** the settings with no default: none until given */
const NO_SECRETS = {
  predial_url: null,
  predial_secret: null,
  provider_url: null,
  provider_secret: null,
  provider_options: '{}',
  provider_base_url: null,
  provider_webhook_secret: null,
  calls_per_second: null,
} as const;

/** Changes only the settings given (and the name, when given); the others keep their current value. */
export async function updateCampaign(
  store: Store,
  campaignId: string,
  settings: CampaignSettings,
  secrets: Secrets = PLAIN,
  name?: string,
): Promise<CampaignRow> {
  const values = { ...definedOnly(settings), ...(name === undefined ? {} : { name }) };
  const row = await store.transaction(async (tx) => {
    const current = await tx.campaigns.byId(campaignId);
    if (!current) throw new AppError('not_found', `campaign ${campaignId} not found`);
    checkSettings({ ...current, ...values }, values);
    const stored = sealed(values, campaignId, secrets);
    await tx.campaigns.update(campaignId, stored);
    return { ...current, ...stored };
  });
  forgetCampaign(store, campaignId);
  return row;
}

export const getCampaign = (store: Store, campaignId: string): Promise<CampaignRow | undefined> => store.campaigns.byId(campaignId);

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** clears a pause; false when the campaign was not paused */
export async function resumeCampaign(store: Store, campaignId: string): Promise<boolean> {
  if (!(await store.campaigns.byId(campaignId))) throw new AppError('not_found', `campaign ${campaignId} not found`);
  const resumed = await store.campaigns.resume(campaignId);
  forgetCampaign(store, campaignId);
  return resumed;
}

/**
 * The campaign, its leads (each with its lead.deleted event) and their
 * attempts, and the keys restricted to it; the number of leads deleted. One
 * transaction, whose statements take a bulk's 1000 leads at a time. Refused
 * while calls of the campaign are in progress: deleting their attempts would
 * leave the calls with no one to follow them, hang them up or hold their
 * numbers (another campaign's lead with the same number would be called while
 * the first call goes on).
 */
const callsInProgress = (n: number) =>
  new AppError(
    'conflict',
    `${n === 1 ? '1 call' : `${n} calls`} of this campaign ${n === 1 ? 'is' : 'are'} in progress: pause it (set its hours to never), and delete it once they have ended (a running dialer closes the calls nobody follows)`,
  );

export async function deleteCampaign(store: Store, campaignId: string, now = Date.now()): Promise<number> {
  const leads = await store.transaction(async (tx) => {
    if (!(await tx.campaigns.byId(campaignId))) throw new AppError('not_found', `campaign ${campaignId} not found`);
    // first a count, to refuse before deleting anything; then again after the leads (in remove)
    const before = await tx.campaigns.callsInProgress(campaignId);
    if (before > 0) throw callsInProgress(before);
    const { leads, callsInProgress: calls } = await tx.campaigns.remove(campaignId, now);
    // thrown, the transaction rolls back: the leads are back, with their events undone
    if (calls > 0) throw callsInProgress(calls);
    return leads;
  });
  forgetCampaign(store, campaignId);
  return leads;
}
