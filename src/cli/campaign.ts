import type { Command } from 'commander';
import { createCampaign, getCampaign, resumeCampaign, updateCampaign } from '../campaigns/service.js';
import { SettingsError } from '../campaigns/settings.js';
import { secretsFor } from '../crypto/secrets.js';
import { AppError } from '../errors.js';
import type { Store } from '../store/index.js';
import { describe, settingsJson, settingsOptions, toSettings } from './campaign-settings.js';
import { arg, output, positiveInt, requireCompany, UsageError, withStore } from './context.js';

/** settings that contradict each other are a usage error too */
async function usage<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw err instanceof SettingsError ? new UsageError(err.message) : err;
  }
}

async function campaignOrFail(store: Store, id: string) {
  const row = await getCampaign(store, id);
  if (!row) throw new AppError('not_found', `campaign ${id} not found`);
  return row;
}

/**
 * A voice platform's API key places calls and costs money: stored without SECRET_KEY it is
 * readable by anyone who reads the database or a dump of it. That is documented (README,
 * docs/operations.md), but said here too, where the key is handed over.
 */
function warnUnsealed(o: { providerSecret?: string; providerWebhookSecret?: string; predialSecret?: string }, secretKey: unknown): void {
  if (secretKey || (o.providerSecret ?? o.providerWebhookSecret ?? o.predialSecret) === undefined) return;
  process.stderr.write(
    'warning: SECRET_KEY is not set, so the secret is stored as given, readable by anyone with the database or a dump of it; set SECRET_KEY (openssl rand -base64 32) to store secrets encrypted (docs/operations.md, "Secrets at rest")\n',
  );
}

export function registerCampaign(program: Command): void {
  const campaign = program.command('campaign').description('campaigns');
  settingsOptions(
    campaign
      .command('create')
      .description('create a campaign; omitted settings take their defaults')
      .requiredOption('--company <id>', 'owning company')
      .requiredOption('--name <name>', 'campaign name'),
  )
    .option('--json', 'print JSON')
    .action((o) =>
      withStore(async (store, config) => {
        const secrets = secretsFor(config.secretKey);
        const result = await usage(() =>
          createCampaign(store, { companyId: o.company, name: o.name, ...toSettings(o) }, Date.now(), secrets),
        );
        output(o.json, result, describe(await campaignOrFail(store, result.campaignId)));
        warnUnsealed(o, config.secretKey);
      }),
    );

  settingsOptions(
    campaign
      .command('update')
      .description("change a campaign's settings; omitted settings keep their current value")
      .argument('<campaignId>', 'the campaign'),
  )
    .option('--json', 'print JSON')
    .action((campaignId: string, o) =>
      withStore(async (store, config) => {
        const row = await usage(() => updateCampaign(store, campaignId, toSettings(o), secretsFor(config.secretKey)));
        output(o.json, { campaignId }, describe(row));
        warnUnsealed(o, config.secretKey);
      }),
    );

  campaign
    .command('show')
    .description('every setting of a campaign, and why it is paused if it is')
    .argument('<campaignId>', 'the campaign')
    .option('--json', 'print JSON')
    .action((campaignId: string, o) =>
      withStore(async (store) => {
        const row = await campaignOrFail(store, campaignId);
        output(o.json, settingsJson(row), describe(row));
      }),
    );

  campaign
    .command('list')
    .description('campaigns, oldest first')
    .option('--company <id>', 'only this company’s')
    .option('--json', 'print JSON')
    .action((o) =>
      withStore(async (store) => {
        // a typo'd company is an error, not an empty list (context.ts, requireCompany)
        if (o.company !== undefined) await requireCompany(store, o.company);
        const rows = await store.campaigns.list(null);
        const list = rows.filter((c) => o.company === undefined || c.company_id === o.company).map(settingsJson);
        const lines = list.map((c) => `${c.campaignId}  ${c.companyId}  ${c.paused ? 'paused ' : 'active '}  ${c.name}`);
        output(o.json, list, lines.join('\n') || 'no campaigns');
      }),
    );

  campaign
    .command('resume')
    .description('clear a pause: the dialer places calls for the campaign again')
    .argument('<campaignId>', 'the campaign')
    .option('--json', 'print JSON')
    .action((campaignId: string, o) =>
      withStore(async (store) => {
        const resumed = await resumeCampaign(store, campaignId);
        output(o.json, { campaignId, resumed }, resumed ? `resumed ${campaignId}` : `${campaignId} was not paused`);
      }),
    );

  campaign
    .command('recycle')
    .description('give exhausted leads new attempts: they move back to attempting and are called again')
    .requiredOption('--campaign <id>', 'the campaign')
    .option('--attempts <n>', "attempts to grant each lead (default: the campaign's max attempts)", arg(positiveInt('--attempts')))
    .option('--json', 'print JSON')
    .action((o) =>
      withStore(async (store) => {
        const row = await campaignOrFail(store, o.campaign);
        const recycled = await store.queue.recycle(row.id, row.max_attempts, o.attempts ?? row.max_attempts);
        output(o.json, { campaignId: row.id, recycled }, `recycled ${recycled} lead${recycled === 1 ? '' : 's'} in ${row.id}`);
      }),
    );
}
