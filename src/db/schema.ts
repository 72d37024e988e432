/** Kysely table types. Column names are snake_case; the API's names live in the HTTP layer. */
import type { Generated } from 'kysely';

export interface CompanyTable {
  id: string;
  name: string;
  created_at: number;
}

/** company settings added later (migration 0011); each has a default, so inserts need not name it */
interface CompanySettingColumns {
  /** calls placed to one number across the company's campaigns per rolling window, e.g. "3/24h,7/7d"; '' for none */
  call_caps: Generated<string>;
}

export interface CampaignTable {
  id: string;
  company_id: string;
  name: string;
  predial_url: string | null;
  predial_secret: string | null;
  timezone: string;
  hours: string;
  local_window: string;
  max_attempts: number;
  retry_delay_ms: number;
  concurrency: number;
  provider: string;
  provider_url: string | null;
  simulate_success: number;
  /** how simulated failures split, e.g. "no-answer=0.6,busy=0.25,voicemail=0.15" (migration 0006) */
  simulate_failures: string;
  /** simulated call duration, "0s" or a range like "1s-5s" (migration 0006) */
  simulate_duration: string;
  /** an open attempt with no outcome after this long closes as unknown (migration 0009) */
  call_timeout_ms: number;
  /** retry delays per outcome, e.g. "busy=10m,no-answer=2h"; '' when only retry_delay_ms applies */
  retry_delays: string;
  /** set while the campaign is paused (calls could not be placed), with why */
  paused_at: number | null;
  paused_reason: string | null;
  /** calls in a row that could not be placed; 20 pause the campaign */
  not_placed_streak: number;
  /** calls in a row the platform accepted and later reported not placed, and since when (migration 0025) */
  late_not_placed: number;
  late_not_placed_since: number | null;
  /** the platform's API key (Twilio: the auth token); sealed when SECRET_KEY is set (migration 0013) */
  provider_secret: string | null;
  /** the platform's --provider-option KEY=VALUE pairs as a JSON object; '{}' for simulate and webhook */
  provider_options: string;
  /** the platform's API, when not its public one */
  provider_base_url: string | null;
  /** the secret the platform signs its webhooks with, where that is not the API key; sealed like provider_secret */
  provider_webhook_secret: string | null;
  /** calls started per second at most, across every dialer process (campaign_pacing); null: no cap (migration 0013) */
  calls_per_second: number | null;
  /** --closed-dates, canonical: `us-federal` and ISO dates, comma-separated; '' for none (migration 0014) */
  closed_dates: string;
  /** --require-consent: 1 when a lead is due only with metadata.consentAt set (migration 0014) */
  require_consent: number;
  /** --regional-rules: 'us' applies the US state calling rules to US numbers, 'off' does not (migration 0016) */
  regional_rules: string;
  /** written by triggers whenever the row changes, never by leadline; a running dialer's fingerprint of its campaigns (migration 0023) */
  revision?: number | string;
  created_at: number;
}

export interface ApiKeyTable {
  id: string;
  company_id: string;
  campaign_id: string | null;
  name: string;
  scope: 'read' | 'write';
  key_hash: string;
  created_at: number;
  revoked_at: number | null;
  last_used_at: number | null;
}

export interface LeadTable {
  /** keyset for pagination: creation order, never reused (AUTOINCREMENT / identity) */
  seq: Generated<number>;
  id: string;
  campaign_id: string;
  phone_number: string | null;
  external_id: string | null;
  /** the metadata object as JSON text, exactly as given */
  metadata: string;
  status: 'raw' | 'attempting' | 'exhausted' | 'concluded';
  /** ISO 8601 UTC (toISOString form), so that text order is time order */
  scheduled_for: string | null;
  priority: number;
  attempts: number;
  created_at: number;
}

/**
 * The dialer's columns on leads (migration 0002). Kept apart from LeadTable,
 * which describes the lead the API shows, so code built on that shape is
 * unaffected; every one has a default, so lead inserts need not name them.
 */
export interface LeadDialerColumns {
  /**
   * ISO 8601 UTC like scheduled_for. When set it replaces scheduled_for as
   * the due time: the retry time, the time the called person's local window
   * opens, or, while a claim is held, the claim's expiry.
   */
  next_attempt_at: string | null;
  /** the worker holding the claim, and since when (epoch ms); null when unclaimed */
  claimed_by: string | null;
  claimed_at: number | null;
  /** attempts granted beyond the campaign's max_attempts by `campaign recycle` */
  extra_attempts: Generated<number>;
  /**
   * The called person's zones (migration 0005): a zone_sets id, NULL until
   * the dialer has worked them out (src/dialer/local-zones.ts).
   */
  local_zones: number | null;
}

/** a set of IANA zones a called person may be in (src/dialer/local-zones.ts) */
interface ZoneSetTable {
  id: Generated<number>;
  /** IANA names joined by one space; '' when unknown (the campaign's zone applies) */
  zones: string;
}

/**
 * One call attempt (dialer), written before the call is placed (migration
 * 0009): open until its outcome is known, then closed.
 */
export interface AttemptTable {
  id: Generated<number>;
  /** `at_…`: sent to the provider, never dialled twice */
  attempt_id: string;
  lead_id: string;
  campaign_id: string;
  company_id: string;
  /** 1 for the lead's first attempt */
  attempt: number;
  started_at: number;
  /** null while open */
  finished_at: number | null;
  /** 1 when the call succeeded (the lead concluded), else 0 */
  success: number;
  /** null while open */
  outcome: string | null;
  /** the number dialled; null when the predial lookup failed, or once removed (its lead deleted, or purged) */
  phone_number: string | null;
  /** once the number is removed: its keyed digest (src/crypto/number-digest.ts), which the call caps count (migration 0015) */
  phone_digest: string | null;
  reason: string | null;
  /** the worker whose claim the call was made under, and the claim's start: the fence for every later write */
  worker: string;
  claimed_at: number | null;
  /** open while the dialer places it; accepted while an asynchronous outcome is awaited */
  state: 'open' | 'accepted' | 'closed';
  /** what closed it: the dialer, an outcome report (API or provider webhook), the call timeout, recovery */
  closed_by: 'dialer' | 'report' | 'timeout' | 'recovery' | null;
  /** 0 for a call that was never placed: it spends no attempt */
  counts: number;
  duration_seconds: number | null;
  /** the provider's id of the call, and (Vapi) the URL that controls it */
  provider_call_id: string | null;
  provider_control: string | null;
  /** an open attempt still open at this instant (ms) closes as unknown */
  deadline_at: number | null;
}

/** one running `leadline dialer` (migration 0009) */
export interface DialerTable {
  id: string;
  host: string;
  pid: number;
  /** "all", or the campaign ids it serves joined by commas */
  campaigns: string;
  started_at: number;
  heartbeat_at: number;
  calls_in_flight: number;
  last_claim_at: number | null;
}

/** the transactional outbox (migration 0009): one row per change, `items` one entry per lead */
interface EventTable {
  id: Generated<number>;
  type: string;
  company_id: string;
  campaign_id: string | null;
  created_at: number;
  count: number;
  /** JSON array of the items' data */
  items: string;
  /** PostgreSQL: the writing transaction's id, the first sort key of readers (migration 0012); SQLite: 0 */
  tx: Generated<number>;
}

/** a company's webhook endpoint and its position in the events (migration 0012) */
export interface WebhookTable {
  id: string;
  company_id: string;
  campaign_id: string | null;
  url: string;
  secret: string;
  /** comma-separated event types; '' for every type */
  event_types: string;
  created_at: number;
  disabled_at: number | null;
  disabled_reason: string | null;
  pos_tx: number;
  pos_id: number;
  pos_n: number;
  tries: number;
  next_try_at: number;
  failing_since: number | null;
  lease_owner: string | null;
  lease_until: number | null;
  /** bumped by every replay: a round settles only where it is still the one it leased (migration 0022) */
  generation: number;
}

/** one try of one message to one endpoint */
export interface WebhookDeliveryTable {
  id: Generated<number>;
  webhook_id: string;
  message_id: string;
  event_type: string;
  try: number;
  ok: number;
  status_code: number | null;
  latency_ms: number;
  error: string | null;
  created_at: number;
}

/** one number on a company's do-not-call list (migration 0011) */
export interface DncTable {
  company_id: string;
  /** E.164 */
  phone_number: string;
  added_at: number;
  source: 'api' | 'cli' | 'dashboard' | 'import' | 'call';
  reason: string | null;
}

/** the one row (id 1): the key of the numbers' digests, 64 hex digits (migration 0015) */
interface NumberDigestKeyTable {
  id: number;
  key: string;
}

/** per campaign under --calls-per-second: when its next call may start, ms on the database's clock (migration 0017) */
interface CampaignPacingTable {
  campaign_id: string;
  next_call_at: number;
}

export interface Database {
  companies: CompanyTable & CompanySettingColumns;
  campaigns: CampaignTable;
  api_keys: ApiKeyTable;
  leads: LeadTable & LeadDialerColumns;
  attempts: AttemptTable;
  zone_sets: ZoneSetTable;
  dialers: DialerTable;
  events: EventTable;
  webhooks: WebhookTable;
  webhook_deliveries: WebhookDeliveryTable;
  users: UserTable;
  sessions: SessionTable;
  dnc: DncTable;
  number_digest_key: NumberDigestKeyTable;
  campaign_pacing: CampaignPacingTable;
}

/** a dashboard account; belongs to exactly one company */
export interface UserTable {
  id: string;
  company_id: string;
  /** lowercased */
  email: string;
  /** scrypt; null until chosen after a one-time sign-in */
  password_hash: string | null;
  /** sha256 of the one-time password; null once used */
  one_time_hash: string | null;
  one_time_expires_at: number | null;
  created_at: number;
}

export interface SessionTable {
  /** sha256 of the session cookie value */
  id_hash: string;
  user_id: string;
  csrf_token: string;
  created_at: number;
  expires_at: number;
}
