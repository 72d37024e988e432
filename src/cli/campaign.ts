import type { Command } from 'commander';
import { createCampaign } from '../campaigns/service.js';
import { arg, output, positiveInt, withDb } from './context.js';

export function registerCampaign(program: Command): void {
  const campaign = program.command('campaign').description('campaigns');
  campaign
    .command('create')
    .requiredOption('--company <id>', 'owning company')
    .requiredOption('--name <name>', 'campaign name')
    .option('--predial-url <url>', 'predial function (prefetch mode) URL')
    .option('--timezone <iana>', 'campaign timezone, e.g. America/New_York')
    .option('--hours <spec>', 'calling hours, e.g. "mon-fri 09:00-17:00"')
    .option('--max-attempts <n>', 'call attempts before a lead is exhausted', arg(positiveInt('--max-attempts')))
    .option('--json', 'print JSON')
    .action((o) =>
      withDb(async (db) => {
        const result = await createCampaign(db, {
          companyId: o.company,
          name: o.name,
          predial_url: o.predialUrl,
          timezone: o.timezone,
          hours: o.hours,
          max_attempts: o.maxAttempts,
        });
        output(o.json, result, `campaignId: ${result.campaignId}`);
      }),
    );

}
