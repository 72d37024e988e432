/** The campaign settings as CLI options (create and update share them), and how `campaign show` prints them. */
import type { Command } from 'commander';
import { formatRetryDelays } from '../campaigns/retry-delays.js';
import type { CampaignRow } from '../campaigns/service.js';
import { type CampaignSettings, parseSetting, providerOptions } from '../campaigns/settings.js';
import { isPlatformName, platformFor } from '../dialer/providers/platforms/index.js';
import { formatDuration } from '../scheduling/duration.js';
import { arg } from './context.js';

/** The settings options; each value is checked as it is parsed (exit 2). */
export function settingsOptions(command: Command): Command {
  return command
    .option('--timezone <iana>', 'campaign timezone, e.g. America/New_York (default UTC)', arg(parseSetting.timezone))
    .option(
      '--hours <spec>',
      'calling hours in the campaign timezone (default "mon-fri 09:00-17:00"; "mon-sun 00:00-24:00" = always)',
      arg(parseSetting.hours),
    )
    .option('--max-attempts <n>', 'call attempts before a lead is exhausted (default 3)', arg(parseSetting.maxAttempts))
    .option(
      '--retry-delay <delay>',
      'wait after a failed attempt: a duration (0s, 90s, 30m, 1h30m; default 30m) or per outcome, e.g. busy=10m,no-answer=2h,default=30m',
      arg(parseSetting.retryDelay),
    )
    .option(
      '--call-timeout <duration>',
      'an attempt with no outcome after this long closes as unknown (default 30m)',
      arg(parseSetting.callTimeout),
    )
    .option('--concurrency <n>', 'calls at once for the campaign, across every dialer (default 1)', arg(parseSetting.concurrency))
    .option(
      '--calls-per-second <n>',
      'calls started per second at most for the campaign, across every dialer, e.g. 1 for Twilio (default: no cap)',
      arg(parseSetting.callsPerSecond),
    )
    .option(
      '--local-window <HH:MM-HH:MM>',
      "the called person's allowed local time (default 08:00-21:00; 00:00-24:00 = off)",
      arg(parseSetting.localWindow),
    )
    .option(
      '--closed-dates <list>',
      "dates nobody is called, on the called person's calendar: ISO dates and us-federal (US federal holidays, as observed), e.g. us-federal,2026-12-24; none = off",
      arg(parseSetting.closedDates),
    )
    .option(
      '--regional-rules <us|off>',
      "us (the default): US numbers are called only in the hours their state allows (docs/compliance.md); off: only the campaign's own hours",
      arg(parseSetting.regionalRules),
    )
    .option('--require-consent', 'call a lead only when its metadata.consentAt holds an ISO 8601 timestamp')
    .option('--no-require-consent', 'call leads without a consentAt too (the default)')
    .option(
      '--predial-url <url>',
      'predial function (prefetch mode): returns the phone number before each call',
      arg(parseSetting.predialUrl),
    )
    .option('--predial-secret <secret>', 'signs predial and webhook requests (HMAC-SHA256)', arg(parseSetting.predialSecret))
    .option(
      '--provider <name>',
      'call provider: simulate, webhook, vapi, retell, bland or twilio (default simulate)',
      arg(parseSetting.provider),
    )
    .option('--provider-url <url>', 'where the webhook provider POSTs each call', arg(parseSetting.providerUrl))
    .option(
      '--provider-secret <key>',
      "vapi, retell, bland, twilio: the platform's API key (twilio: the auth token); write-only",
      arg(parseSetting.providerSecret),
    )
    .option(
      '--provider-option <key=value>',
      "the platform's options, repeatable (docs/providers.md lists each platform's keys); given on update, they replace all of them",
      (raw: string, previous?: Record<string, string>) => arg((r: string) => collectOption(r, previous))(raw),
    )
    .option('--provider-base-url <url>', "the platform's API (default its public one), e.g. for a proxy", arg(parseSetting.providerBaseUrl))
    .option(
      '--provider-webhook-secret <secret>',
      'the secret the platform signs its webhooks with, where that is not the API key (bland: required); write-only',
      arg(parseSetting.providerWebhookSecret),
    )
    .option(
      '--simulate-success <p>',
      'simulate provider: probability a call succeeds, 0..1 (default 0.5)',
      arg(parseSetting.simulateSuccess),
    )
    .option(
      '--simulate-failures <mix>',
      'simulate provider: how failed calls split, shares adding up to 1 (default no-answer=0.6,busy=0.25,voicemail=0.15)',
      arg(parseSetting.simulateFailures),
    )
    .option(
      '--simulate-duration <range>',
      'simulate provider: call duration, e.g. 2s or 1s-5s (default 0s)',
      arg(parseSetting.simulateDuration),
    );
}

/** commander's accumulator for the repeatable --provider-option */
function collectOption(raw: string, previous: Record<string, string> | undefined): Record<string, string> {
  const [key, value] = parseSetting.providerOption(raw);
  if (previous && Object.hasOwn(previous, key)) throw new Error(`--provider-option ${key} is given twice`);
  return Object.assign(Object.create(null) as Record<string, string>, previous, { [key]: value });
}

export type SettingsFlags = {
  timezone?: string;
  hours?: string;
  maxAttempts?: number;
  retryDelay?: Pick<CampaignSettings, 'retry_delay_ms' | 'retry_delays'>;
  callTimeout?: number;
  concurrency?: number;
  callsPerSecond?: number;
  localWindow?: string;
  closedDates?: string;
  requireConsent?: boolean;
  regionalRules?: string;
  predialUrl?: string;
  predialSecret?: string;
  provider?: string;
  providerUrl?: string;
  providerSecret?: string;
  providerOption?: Record<string, string>;
  providerBaseUrl?: string;
  providerWebhookSecret?: string;
  simulateSuccess?: number;
  simulateFailures?: string;
  simulateDuration?: string;
};

export const toSettings = (o: SettingsFlags): CampaignSettings => ({
  timezone: o.timezone,
  hours: o.hours,
  max_attempts: o.maxAttempts,
  ...o.retryDelay,
  call_timeout_ms: o.callTimeout,
  concurrency: o.concurrency,
  calls_per_second: o.callsPerSecond,
  local_window: o.localWindow,
  closed_dates: o.closedDates,
  require_consent: o.requireConsent === undefined ? undefined : o.requireConsent ? 1 : 0,
  regional_rules: o.regionalRules,
  predial_url: o.predialUrl,
  predial_secret: o.predialSecret,
  provider: o.provider,
  provider_url: o.providerUrl,
  provider_secret: o.providerSecret,
  provider_options: o.providerOption === undefined ? undefined : JSON.stringify({ ...o.providerOption }),
  provider_base_url: o.providerBaseUrl,
  provider_webhook_secret: o.providerWebhookSecret,
  simulate_success: o.simulateSuccess,
  simulate_failures: o.simulateFailures,
  simulate_duration: o.simulateDuration,
});

/** every setting and the pause, secrets left out; the JSON `campaign show --json` prints */
/** a URL as shown: a password written into it (https://user:pw@host) is not printed, as no secret is */
function shownUrl(url: string | null): string | null {
  if (url === null) return null;
  // the URL parser, not a pattern: a user name or password may itself hold an @ (me@corp.com:pw@host)
  try {
    const u = new URL(url);
    if (u.password === '') return url;
    u.password = '***';
    return u.toString();
  } catch {
    return url;
  }
}

export function settingsJson(c: CampaignRow) {
  return {
    campaignId: c.id,
    companyId: c.company_id,
    name: c.name,
    timezone: c.timezone,
    hours: c.hours,
    localWindow: c.local_window,
    closedDates: c.closed_dates,
    requireConsent: Boolean(c.require_consent),
    regionalRules: c.regional_rules,
    maxAttempts: c.max_attempts,
    retryDelay: formatRetryDelays(Number(c.retry_delay_ms), c.retry_delays),
    callTimeout: formatDuration(Number(c.call_timeout_ms)),
    concurrency: c.concurrency,
    callsPerSecond: c.calls_per_second,
    provider: c.provider,
    providerUrl: shownUrl(c.provider_url),
    ...(isPlatformName(c.provider)
      ? {
          providerOptions: providerOptions(c.provider_options),
          providerBaseUrl: c.provider_base_url ?? platformFor(c.provider).defaultBaseUrl,
          providerSecretSet: c.provider_secret !== null,
          providerWebhookSecretSet: c.provider_webhook_secret !== null,
        }
      : {}),
    simulate: { success: c.simulate_success, failures: c.simulate_failures, duration: c.simulate_duration },
    predialUrl: shownUrl(c.predial_url),
    predialSigned: c.predial_secret !== null,
    paused: c.paused_at === null ? null : { since: new Date(Number(c.paused_at)).toISOString(), reason: c.paused_reason },
  };
}

/** readable settings, secrets left out */
/** a value written around the CLI (neither us nor off) is shown as it is: the dialer calls nobody from the campaign */
const stateRules = (v: string) =>
  v === 'us'
    ? "us (US numbers: their state's calling hours)"
    : v === 'off'
      ? 'off'
      : `${JSON.stringify(v)}, not us or off: nobody is called`;

export function describe(c: CampaignRow): string {
  const s = settingsJson(c);
  const provider =
    c.provider === 'webhook'
      ? `webhook ${shownUrl(c.provider_url)}`
      : isPlatformName(c.provider)
        ? `${c.provider} ${s.providerBaseUrl} (${Object.entries(s.providerOptions ?? {})
            .map(([k, v]) => `${k}=${v}`)
            .join(', ')}; secret ${s.providerSecretSet ? 'set' : 'missing'}${s.providerWebhookSecretSet ? '; webhook secret set' : ''})`
        : `${c.provider} (success ${c.simulate_success}; failures ${c.simulate_failures}; duration ${c.simulate_duration})`;
  return [
    `campaignId:    ${c.id}`,
    `name:          ${c.name}`,
    `timezone:      ${c.timezone}`,
    `hours:         ${c.hours}`,
    `local window:  ${c.local_window === '00:00-24:00' ? 'off' : c.local_window}`,
    `closed dates:  ${c.closed_dates === '' ? 'none' : c.closed_dates}`,
    `consent:       ${c.require_consent ? 'required (metadata.consentAt)' : 'not required'}`,
    `state rules:   ${stateRules(c.regional_rules)}`,
    `max attempts:  ${c.max_attempts}`,
    `retry delay:   ${s.retryDelay}`,
    `call timeout:  ${s.callTimeout}`,
    `concurrency:   ${c.concurrency}${c.calls_per_second === null ? '' : `, at most ${c.calls_per_second} calls a second`}`,
    `provider:      ${provider}`,
    `predial:       ${shownUrl(c.predial_url) ?? 'none'}${c.predial_url ? (c.predial_secret ? ' (signed)' : ' (unsigned: no secret)') : ''}`,
    `paused:        ${s.paused ? `since ${s.paused.since}: ${s.paused.reason}` : 'no'}`,
  ].join('\n');
}
