import type { Command } from 'commander';
import { createCampaign, getCampaign, updateCampaign, type CampaignRow } from '../campaigns/service.js';
import { type CampaignSettings, parseSetting, SettingsError } from '../campaigns/settings.js';
import { formatDuration } from '../scheduling/duration.js';
import { AppError } from '../errors.js';
import { arg, output, positiveInt, UsageError, withStore } from './context.js';

/** The settings options, shared by create and update; each value is checked as it is parsed (exit 2). */
function settingsOptions(command: Command): Command {
  return command
    .option('--timezone <iana>', 'campaign timezone, e.g. America/New_York (default UTC)', arg(parseSetting.timezone))
    .option('--hours <spec>', 'calling hours in the campaign timezone (default "mon-fri 09:00-17:00"; "mon-sun 00:00-24:00" = always)', arg(parseSetting.hours))
    .option('--max-attempts <n>', 'call attempts before a lead is exhausted (default 3)', arg(parseSetting.maxAttempts))
    .option('--retry-delay <duration>', 'wait between attempts: 0s, 90s, 30m, 2h, 1h30m (default 30m)', arg(parseSetting.retryDelay))
    .option('--concurrency <n>', 'calls at once, per dialer process (default 1)', arg(parseSetting.concurrency))
    .option('--local-window <HH:MM-HH:MM>', "the called person's allowed local time (default 08:00-21:00; 00:00-24:00 = off)", arg(parseSetting.localWindow))
    .option('--predial-url <url>', 'predial function (prefetch mode): returns the phone number before each call', arg(parseSetting.predialUrl))
    .option('--predial-secret <secret>', 'signs predial and webhook requests (HMAC-SHA256)', arg(parseSetting.predialSecret))
    .option('--provider <name>', 'call provider: simulate or webhook (default simulate)', arg(parseSetting.provider))
    .option('--provider-url <url>', 'where the webhook provider POSTs each call', arg(parseSetting.providerUrl))
    .option('--simulate-success <p>', 'simulate provider: probability a call succeeds, 0..1 (default 0.5)', arg(parseSetting.simulateSuccess))
    .option(
      '--simulate-failures <mix>',
      'simulate provider: how failed calls split, shares adding up to 1 (default no-answer=0.6,busy=0.25,voicemail=0.15)',
      arg(parseSetting.simulateFailures),
    )
    .option('--simulate-duration <range>', 'simulate provider: call duration, e.g. 2s or 1s-5s (default 0s)', arg(parseSetting.simulateDuration));
}

type SettingsFlags = {
  timezone?: string;
  hours?: string;
  maxAttempts?: number;
  retryDelay?: number;
  concurrency?: number;
  localWindow?: string;
  predialUrl?: string;
  predialSecret?: string;
  provider?: string;
  providerUrl?: string;
  simulateSuccess?: number;
  simulateFailures?: string;
  simulateDuration?: string;
};

const toSettings = (o: SettingsFlags): CampaignSettings => ({
  timezone: o.timezone,
  hours: o.hours,
  max_attempts: o.maxAttempts,
  retry_delay_ms: o.retryDelay,
  concurrency: o.concurrency,
  local_window: o.localWindow,
  predial_url: o.predialUrl,
  predial_secret: o.predialSecret,
  provider: o.provider,
  provider_url: o.providerUrl,
  simulate_success: o.simulateSuccess,
  simulate_failures: o.simulateFailures,
  simulate_duration: o.simulateDuration,
});

/** settings that contradict each other are a usage error too */
async function usage<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw err instanceof SettingsError ? new UsageError(err.message) : err;
  }
}

/** readable settings, secrets left out */
function describe(c: CampaignRow): string {
  const provider =
    c.provider === 'webhook'
      ? `webhook ${c.provider_url}`
      : `${c.provider} (success ${c.simulate_success}; failures ${c.simulate_failures}; duration ${c.simulate_duration})`;
  return [
    `campaignId:    ${c.id}`,
    `timezone:      ${c.timezone}`,
    `hours:         ${c.hours}`,
    `local window:  ${c.local_window === '00:00-24:00' ? 'off' : c.local_window}`,
    `max attempts:  ${c.max_attempts}`,
    `retry delay:   ${formatDuration(c.retry_delay_ms)}`,
    `concurrency:   ${c.concurrency}`,
    `provider:      ${provider}`,
    `predial:       ${c.predial_url ?? 'none'}${c.predial_url ? (c.predial_secret ? ' (signed)' : ' (unsigned: no secret)') : ''}`,
  ].join('\n');
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
      withStore(async (store) => {
        const result = await usage(() => createCampaign(store, { companyId: o.company, name: o.name, ...toSettings(o) }));
        const row = (await getCampaign(store, result.campaignId))!;
        output(o.json, result, describe(row));
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
      withStore(async (store) => {
        const row = await usage(() => updateCampaign(store, campaignId, toSettings(o)));
        output(o.json, { campaignId }, describe(row));
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
        const row = await getCampaign(store, o.campaign);
        if (!row) throw new AppError('not_found', `campaign ${o.campaign} not found`);
        const recycled = await store.queue.recycle(row.id, row.max_attempts, o.attempts ?? row.max_attempts);
        output(o.json, { campaignId: row.id, recycled }, `recycled ${recycled} lead${recycled === 1 ? '' : 's'} in ${row.id}`);
      }),
    );
}
