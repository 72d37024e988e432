/**
 * Campaign settings: one parser per setting, and the checks that involve
 * several of them. `campaign create` and `campaign update` both go through
 * here, so a value the dialer cannot use never reaches the database.
 */
import { formatDurationRange, parseDuration, parseDurationRange } from '../scheduling/duration.js';
import { parseRetryDelays } from './retry-delays.js';
import { DEFAULT_FAILURE_MIX_SPEC, formatFailureMix, parseFailureMix } from '../dialer/providers/failure-mix.js';
import { formatHours, parseHours, parseLocalWindow, validateTimeZone } from '../scheduling/hours.js';
import { parseClosedDates } from '../scheduling/closed-dates.js';
import { isRegionalRules } from '../compliance/regional-rules.js';
import type { CampaignTable } from '../db/schema.js';
import { isPlatformName, platformFor } from '../dialer/providers/platforms/index.js';

export const PROVIDERS = ['simulate', 'webhook', 'vapi', 'retell', 'bland', 'twilio'] as const;
export type ProviderName = (typeof PROVIDERS)[number];

/** the settings an operator may set; omitted ones keep their default (or current value) */
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
    | 'simulate_failures'
    | 'simulate_duration'
    | 'call_timeout_ms'
    | 'retry_delays'
    | 'provider_secret'
    | 'provider_options'
    | 'provider_base_url'
    | 'provider_webhook_secret'
    | 'calls_per_second'
    | 'closed_dates'
    | 'require_consent'
    | 'regional_rules'
  >
>;

/**
 * The one list of campaign defaults: every new campaign is written with all
 * of them (campaigns/service.ts), so the columns' defaults in the frozen
 * migrations never decide anything; the dashboard's form starts from them and
 * docs/dialer.md lists them.
 */
export const DEFAULT_SETTINGS = Object.freeze({
  timezone: 'UTC',
  hours: 'mon-fri 09:00-17:00',
  local_window: '08:00-21:00',
  max_attempts: 3,
  retry_delay_ms: 30 * 60 * 1000,
  concurrency: 1,
  provider: 'simulate',
  simulate_success: 0.5,
  simulate_failures: DEFAULT_FAILURE_MIX_SPEC,
  simulate_duration: '0s',
  call_timeout_ms: 30 * 60 * 1000,
  retry_delays: '',
  closed_dates: '',
  require_consent: 0,
  regional_rules: 'us',
} satisfies CampaignSettings);

export class SettingsError extends Error {}

const fail = (message: string): never => {
  throw new SettingsError(message);
};

// Bounds that catch typos ("--concurrency 5000" for 50) rather than model limits.
const MAX_ATTEMPTS = 100;
const MAX_CONCURRENCY = 1000;
const MAX_CALLS_PER_SECOND = 100;
const MAX_SIMULATED_CALL_MS = 24 * 3_600_000;
const MAX_CALL_TIMEOUT_MS = 24 * 3_600_000;

function wholeNumber(name: string, raw: string, max: number): number {
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < 1 || n > max) fail(`${name} must be a whole number from 1 to ${max}, got "${raw}"`);
  return n;
}

function httpUrl(name: string, raw: string): string {
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    // reported below
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) fail(`${name} must be an http:// or https:// URL, got "${raw}"`);
  return raw;
}

function rethrow<T>(name: string, parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    return fail(`${name}: ${(err as Error).message}`);
  }
}

/** Parses the text of each option (as the CLI receives it) into its column value. */
export const parseSetting = {
  timezone: (raw: string) => rethrow('--timezone', () => validateTimeZone(raw.trim())),
  // Stored in canonical form, so that `explain` and the docs show one spelling.
  hours: (raw: string) => rethrow('--hours', () => formatHours(parseHours(raw))),
  localWindow: (raw: string) =>
    rethrow('--local-window', () => {
      parseLocalWindow(raw);
      return raw.trim();
    }),
  // Stored in canonical form (us-federal first, dates sorted); '' or "none" for none.
  closedDates: (raw: string) => rethrow('--closed-dates', () => parseClosedDates(raw).spec),
  regionalRules: (raw: string) => {
    const v = raw.trim().toLowerCase();
    return isRegionalRules(v) ? v : fail(`--regional-rules must be us or off, got "${raw}"`);
  },
  maxAttempts: (raw: string) => wholeNumber('--max-attempts', raw, MAX_ATTEMPTS),
  /** a plain duration, or per outcome: busy=10m,no-answer=2h,default=30m */
  retryDelay: (raw: string): Pick<CampaignSettings, 'retry_delay_ms' | 'retry_delays'> =>
    rethrow('--retry-delay', () => {
      const { defaultMs, byOutcome } = parseRetryDelays(raw);
      return { ...(defaultMs === undefined ? {} : { retry_delay_ms: defaultMs }), retry_delays: byOutcome };
    }),
  callTimeout: (raw: string) =>
    rethrow('--call-timeout', () => {
      const ms = parseDuration(raw);
      if (ms < 10_000 || ms > MAX_CALL_TIMEOUT_MS) throw new Error('a call timeout is from 10s to 1d');
      return ms;
    }),
  concurrency: (raw: string) => wholeNumber('--concurrency', raw, MAX_CONCURRENCY),
  callsPerSecond: (raw: string) => {
    const n = Number(raw);
    if (!/^(\d+(\.\d*)?|\.\d+)$/.test(raw.trim()) || !(n > 0 && n <= MAX_CALLS_PER_SECOND)) {
      fail(`--calls-per-second must be a number above 0 and at most ${MAX_CALLS_PER_SECOND}, e.g. 1 or 0.5, got "${raw}"`);
    }
    return n;
  },
  predialUrl: (raw: string) => httpUrl('--predial-url', raw),
  predialSecret: (raw: string) => (raw === '' ? fail('--predial-secret must not be empty') : raw),
  provider: (raw: string): ProviderName =>
    (PROVIDERS as readonly string[]).includes(raw)
      ? (raw as ProviderName)
      : fail(`--provider must be one of ${PROVIDERS.join(', ')}, got "${raw}"`),
  providerUrl: (raw: string) => httpUrl('--provider-url', raw),
  providerSecret: (raw: string) => (raw === '' ? fail('--provider-secret must not be empty') : raw),
  /** one KEY=VALUE; which keys a platform takes is its adapter's rule, checked with the provider (checkSettings) */
  providerOption: (raw: string): [string, string] => {
    const eq = raw.indexOf('=');
    if (eq <= 0) fail(`--provider-option must be KEY=VALUE, got "${raw}"`);
    return [raw.slice(0, eq).trim(), raw.slice(eq + 1)];
  },
  providerBaseUrl: (raw: string) => httpUrl('--provider-base-url', raw),
  providerWebhookSecret: (raw: string) => (raw === '' ? fail('--provider-webhook-secret must not be empty') : raw),
  simulateSuccess: (raw: string) => {
    const p = Number(raw);
    if (!/^(0|1|0?\.\d+|1\.0*)$/.test(raw) || !(p >= 0 && p <= 1))
      fail(`--simulate-success must be a probability from 0 to 1, e.g. 0.3, got "${raw}"`);
    return p;
  },
  // Stored in canonical form, like the hours.
  simulateFailures: (raw: string) => rethrow('--simulate-failures', () => formatFailureMix(parseFailureMix(raw.trim()))),
  simulateDuration: (raw: string) =>
    rethrow('--simulate-duration', () => {
      const range = parseDurationRange(raw);
      if (range[1] > MAX_SIMULATED_CALL_MS) throw new Error('a simulated call lasts at most 1d');
      return formatDurationRange(range);
    }),
};

type ProviderColumns = Pick<CampaignTable, 'provider' | 'provider_url'> &
  Partial<Pick<CampaignTable, 'provider_secret' | 'provider_options' | 'provider_webhook_secret'>>;

/**
 * Checks that need several settings at once, on the campaign as it will be
 * stored (`next`), knowing which settings were given now (`given`). A
 * platform's options are checked by its adapter here, at create and update
 * time, so that a missing or unknown key never reaches the dialer.
 */
export function checkSettings(next: ProviderColumns, given: CampaignSettings = next): void {
  if (next.provider === 'webhook' && !next.provider_url) fail('--provider webhook needs --provider-url');
  if (!isPlatformName(next.provider)) {
    // kept, unused, when a platform campaign goes back to simulate or webhook; refused when given for one
    if (given.provider_options !== undefined && given.provider_options !== '{}') {
      fail(`--provider-option is for --provider vapi, retell, bland or twilio, not ${next.provider}`);
    }
    return;
  }
  const platform = platformFor(next.provider);
  try {
    platform.parseOptions(providerOptions(next.provider_options ?? '{}'));
  } catch (err) {
    fail((err as Error).message); // the adapter's message names the platform and the key
  }
  if (!next.provider_secret) fail(`--provider ${platform.name} needs --provider-secret (the platform's API key)`);
  if (platform.requiresWebhookSecret && !next.provider_webhook_secret) {
    fail(`--provider ${platform.name} needs --provider-webhook-secret (the secret ${platform.name} signs its webhooks with)`);
  }
}

/** the stored options (a JSON object of strings) */
export function providerOptions(stored: string): Record<string, string> {
  const parsed: unknown = JSON.parse(stored);
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('provider options are not an object');
  return Object.fromEntries(Object.entries(parsed).map(([k, v]) => [k, String(v)]));
}
