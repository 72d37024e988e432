/**
 * The campaign settings form, read through the dialer's own parsers
 * (src/campaigns/settings.ts), so the dashboard accepts exactly what
 * `leadline campaign create/update` accepts and nothing else.
 */
import { type CampaignSettings, DEFAULT_SETTINGS, parseSetting, providerOptions, SettingsError } from '../campaigns/settings.js';
import type { CampaignTable } from '../db/schema.js';
import { formatRetryDelays } from '../campaigns/retry-delays.js';
import { formatDuration } from '../scheduling/duration.js';
import { storable } from '../storable.js';

/** form field → its label; also turns the parsers' flag names into the labels the form shows */
export const LABELS = {
  timezone: 'Timezone',
  hours: 'Calling hours',
  local_window: 'Local window',
  closed_dates: 'Closed dates',
  require_consent: 'Require consent',
  regional_rules: 'State calling rules',
  max_attempts: 'Maximum attempts',
  retry_delay: 'Retry delay',
  call_timeout: 'Call timeout',
  concurrency: 'Concurrency',
  calls_per_second: 'Calls per second',
  predial_url: 'Predial URL',
  predial_secret: 'Predial secret',
  provider: 'Provider',
  provider_url: 'Provider URL',
  provider_secret: 'Platform API key',
  provider_option: 'Platform options',
  provider_base_url: 'Platform API URL',
  provider_webhook_secret: 'Platform webhook secret',
  simulate_success: 'Simulated success rate',
  simulate_failures: 'Simulated failure mix',
  simulate_duration: 'Simulated call duration',
} as const;
export type Field = keyof typeof LABELS;
export type FormValues = Partial<Record<Field | 'name' | 'clear_predial_secret', string>>;

const FLAG_LABELS: Record<string, string> = Object.fromEntries(
  Object.entries(LABELS).map(([field, label]) => [`--${field.replace(/_/g, '-')}`, label]),
);

export function labelled(message: string): string {
  return message.replace(/--[a-z]+(?:-[a-z]+)*/g, (flag) => FLAG_LABELS[flag] ?? flag);
}

/** the form's text for a new campaign: the one list of defaults */
export const defaultValues = (): FormValues => {
  const { name: _, ...values } = valuesOf({
    ...DEFAULT_SETTINGS,
    name: '',
    predial_url: null,
    provider_url: null,
    provider_options: '{}',
    provider_base_url: null,
    calls_per_second: null,
  });
  return values;
};

type FormSource = Omit<
  CampaignTable,
  | 'id'
  | 'company_id'
  | 'created_at'
  | 'predial_secret'
  | 'paused_at'
  | 'paused_reason'
  | 'not_placed_streak'
  | 'late_not_placed'
  | 'late_not_placed_since'
  | 'provider_secret'
  | 'provider_webhook_secret'
>;

/** the form's text for a stored campaign, so an edit starts from what is there */
export function valuesOf(c: FormSource): FormValues {
  return {
    name: c.name,
    timezone: c.timezone,
    hours: c.hours,
    local_window: c.local_window,
    closed_dates: c.closed_dates,
    require_consent: c.require_consent ? 'yes' : 'no',
    regional_rules: c.regional_rules,
    max_attempts: String(c.max_attempts),
    retry_delay: formatRetryDelays(Number(c.retry_delay_ms), c.retry_delays),
    call_timeout: formatDuration(Number(c.call_timeout_ms)),
    concurrency: String(c.concurrency),
    calls_per_second: c.calls_per_second === null ? '' : String(c.calls_per_second),
    predial_url: c.predial_url ?? '',
    provider: c.provider,
    provider_url: c.provider_url ?? '',
    provider_option: Object.entries(providerOptions(c.provider_options))
      .map(([k, v]) => `${k}=${v}`)
      .join('\n'),
    provider_base_url: c.provider_base_url ?? '',
    simulate_success: String(c.simulate_success),
    simulate_failures: c.simulate_failures,
    simulate_duration: c.simulate_duration,
  };
}

/** every field the form got wrong, in the form's order; the page lists them all and focuses the first */
export class FormErrors extends SettingsError {
  constructor(readonly fields: readonly { field: Field | 'name'; message: string }[]) {
    super(fields.map((f) => f.message).join('; '));
  }
}

const NAME_MAX = 200;

/** a campaign's name as the dashboard takes it: trimmed, 1 to 200 characters, none that cannot be stored */
export function campaignName(raw: string): string {
  const name = raw.trim();
  if (name === '' || name.length > NAME_MAX) throw new SettingsError(`Give the campaign a name of 1 to ${NAME_MAX} characters`);
  if (!storable(name)) throw new SettingsError('The name holds a character that cannot be stored');
  return name;
}

/**
 * The name and settings a submitted form asks for, or FormErrors naming every
 * field that is wrong (not only the first). An empty predial URL or provider
 * URL removes it; an empty predial secret keeps the stored one (it is never
 * sent back to the browser), unless "remove the secret" is ticked. The
 * simulated failure mix and call duration are required when sent; a form
 * from before they existed (one without the fields at all) keeps their
 * current value. A form without a name field keeps the name.
 */
export function parseForm(f: FormValues): { name: string | undefined; settings: CampaignSettings } {
  const errors: { field: Field | 'name'; message: string }[] = [];
  const text = (field: Field) => (f[field] ?? '').trim();
  /** runs one field's parser; a failure is recorded and the field left out */
  const read = <T>(field: Field | 'name', parse: () => T): T | undefined => {
    try {
      // The parsers refuse what they do not understand, but the secrets and the URLs' paths are free text.
      if (field !== 'name' && !storable(f[field] ?? ''))
        throw new SettingsError(`${LABELS[field]} holds a character that cannot be stored`);
      return parse();
    } catch (err) {
      if (!(err instanceof SettingsError)) throw err;
      errors.push({ field, message: labelled(err.message) });
      return undefined;
    }
  };
  const required = (field: Field) => {
    const v = text(field);
    if (v === '') throw new SettingsError(`${LABELS[field]} is required`);
    return v;
  };
  const optional = <T>(field: Field, parse: (raw: string) => T): T | null | undefined =>
    read(field, () => (text(field) === '' ? null : parse(text(field))));
  const sent = (field: Field) => f[field] !== undefined;
  const name = f.name === undefined ? undefined : read('name', () => campaignName(f.name!));
  // read in the page's order, so the first error recorded is the first invalid field on the page
  const settings: CampaignSettings = {
    timezone: read('timezone', () => parseSetting.timezone(required('timezone'))),
    hours: read('hours', () => parseSetting.hours(required('hours'))),
    local_window: read('local_window', () => parseSetting.localWindow(required('local_window'))),
    max_attempts: read('max_attempts', () => parseSetting.maxAttempts(required('max_attempts'))),
    ...read('retry_delay', () => parseSetting.retryDelay(required('retry_delay'))),
    call_timeout_ms: sent('call_timeout') ? read('call_timeout', () => parseSetting.callTimeout(required('call_timeout'))) : undefined,
    concurrency: read('concurrency', () => parseSetting.concurrency(required('concurrency'))),
    provider: read('provider', () => parseSetting.provider(required('provider'))),
    provider_url: optional('provider_url', parseSetting.providerUrl),
    simulate_success: read('simulate_success', () => parseSetting.simulateSuccess(required('simulate_success'))),
    simulate_failures: sent('simulate_failures')
      ? read('simulate_failures', () => parseSetting.simulateFailures(required('simulate_failures')))
      : undefined,
    simulate_duration: sent('simulate_duration')
      ? read('simulate_duration', () => parseSetting.simulateDuration(required('simulate_duration')))
      : undefined,
    predial_url: optional('predial_url', parseSetting.predialUrl),
  };
  // a form from before the platforms (no such fields) leaves their settings alone
  if (f.calls_per_second !== undefined) settings.calls_per_second = optional('calls_per_second', parseSetting.callsPerSecond);
  // a form from before the calling gates leaves them alone; an empty closed dates field is none
  if (f.closed_dates !== undefined) settings.closed_dates = read('closed_dates', () => parseSetting.closedDates(text('closed_dates')));
  if (f.require_consent !== undefined) {
    settings.require_consent = read('require_consent', () => {
      const v = text('require_consent');
      if (v !== 'yes' && v !== 'no') throw new SettingsError(`${LABELS.require_consent} must be yes or no`);
      return v === 'yes' ? 1 : 0;
    });
  }
  // a form from before the state rules leaves them alone
  if (f.regional_rules !== undefined)
    settings.regional_rules = read('regional_rules', () => parseSetting.regionalRules(text('regional_rules')));
  if (f.provider_option !== undefined) settings.provider_options = optionLines(f.provider_option);
  if (f.provider_base_url !== undefined) settings.provider_base_url = optional('provider_base_url', parseSetting.providerBaseUrl);
  // write-only, like the predial secret: empty keeps the stored one
  if ((f.provider_secret ?? '') !== '') {
    settings.provider_secret = read('provider_secret', () => parseSetting.providerSecret(f.provider_secret!));
  }
  if ((f.provider_webhook_secret ?? '') !== '') {
    settings.provider_webhook_secret = read('provider_webhook_secret', () =>
      parseSetting.providerWebhookSecret(f.provider_webhook_secret!),
    );
  }
  if (f.clear_predial_secret === '1') settings.predial_secret = null;
  else if ((f.predial_secret ?? '') !== '')
    settings.predial_secret = read('predial_secret', () => parseSetting.predialSecret(f.predial_secret!));
  if (errors.length > 0) throw new FormErrors(errors);
  return { name, settings };
}

/** the platform options as the form takes them: one KEY=VALUE a line, as --provider-option */
function optionLines(text: string): string {
  // no prototype: a key named __proto__ is a key like any other
  const options: Record<string, string> = Object.create(null);
  for (const line of text.split(/\r?\n/)) {
    if (line.trim() === '') continue;
    const [key, value] = parseSetting.providerOption(line.trim());
    if (Object.hasOwn(options, key)) throw new SettingsError(`--provider-option ${key} is given twice`);
    options[key] = value;
  }
  return JSON.stringify(options);
}
