/**
 * A company's webhook endpoints (docs/events.md "Webhooks"): create with a
 * `whsec_` secret shown once, list, delete, rotate the secret, enable a
 * disabled one, the log of its tries, and replay from an instant.
 */
import { type Secrets, secretsFor } from '../crypto/secrets.js';
import { AppError, validation } from '../errors.js';
import { newId } from '../ids.js';
import { generateSecret } from '../net/standard-webhooks.js';
import { EVENT_TYPES, type EventType, type Position } from '../store/events.js';
import type { Store } from '../store/index.js';
import type { DeliveryRow, WebhookRow } from '../store/webhooks.js';

const MAX_URL = 2000;

export interface WebhookInput {
  companyId: string;
  url: string;
  /** event types; none or empty: every type */
  events?: readonly string[];
  campaignId?: string | null;
}

export interface WebhookSummary {
  webhookId: string;
  companyId: string;
  campaignId: string | null;
  url: string;
  events: EventType[] | 'all';
  status: 'enabled' | 'disabled';
  disabledReason: string | null;
  /** ISO 8601 */
  createdAt: string;
  failingSince: string | null;
  nextTryAt: string;
}

/** the URL, checked: absolute http(s), no credentials in it, bounded */
function checkUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw validation(`url: "${raw}" is not an absolute URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw validation('url: must be http:// or https://');
  if (url.username || url.password) throw validation('url: must not carry a user name or password');
  if (raw.length > MAX_URL) throw validation(`url: longer than ${MAX_URL} characters`);
  return url.toString();
}

function checkTypes(events: readonly string[] | undefined): EventType[] {
  const types = [...new Set((events ?? []).map((e) => e.trim()).filter((e) => e !== ''))];
  const unknown = types.filter((t) => !(EVENT_TYPES as readonly string[]).includes(t));
  if (unknown.length > 0) throw validation(`events: unknown type ${unknown.join(', ')} (known: ${EVENT_TYPES.join(', ')})`);
  return types as EventType[];
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

function summary(w: WebhookRow): WebhookSummary {
  return {
    webhookId: w.id,
    companyId: w.company_id,
    campaignId: w.campaign_id,
    url: w.url,
    events: w.event_types === '' ? 'all' : (w.event_types.split(',') as EventType[]),
    status: w.disabled_at === null ? 'enabled' : 'disabled',
    disabledReason: w.disabled_reason,
    createdAt: iso(w.created_at)!,
    failingSince: iso(w.failing_since),
    nextTryAt: iso(w.next_try_at)!,
  };
}

/** SECRET_KEY seals an endpoint's secret, bound to the endpoint (a sealed value copied to another does not open) */
const context = (id: string) => `webhooks.secret:${id}`;
const sealFor = (secrets: Secrets, secret: string, id: string) => secrets.seal(secret, context(id));
/** the endpoint's secret in plain text, for signing */
export const webhookSecret = (w: Pick<WebhookRow, 'id' | 'secret'>, secrets: Secrets): string => secrets.open(w.secret, context(w.id));

/** a new endpoint; it receives the events committed from now on */
export async function createWebhook(
  store: Store,
  input: WebhookInput,
  now = Date.now(),
  secrets: Secrets = secretsFor(undefined),
): Promise<{ webhookId: string; secret: string }> {
  const url = checkUrl(input.url);
  const types = checkTypes(input.events);
  if (!(await store.companies.exists(input.companyId))) throw new AppError('not_found', `company ${input.companyId} not found`);
  if (input.campaignId) {
    const campaign = await store.campaigns.byId(input.campaignId);
    if (!campaign || campaign.company_id !== input.companyId) {
      throw new AppError('not_found', `campaign ${input.campaignId} not found in company ${input.companyId}`);
    }
  }
  const webhookId = newId('wh_');
  const secret = generateSecret();
  const end = await store.events.end();
  await store.webhooks.create({
    id: webhookId,
    company_id: input.companyId,
    campaign_id: input.campaignId || null,
    url,
    secret: sealFor(secrets, secret, webhookId),
    event_types: types.join(','),
    created_at: now,
    disabled_at: null,
    disabled_reason: null,
    pos_tx: end.tx,
    pos_id: end.id,
    pos_n: end.n,
    tries: 0,
    next_try_at: now,
    failing_since: null,
    lease_owner: null,
    lease_until: null,
    generation: 0,
  });
  return { webhookId, secret };
}

const isBefore = (a: Position, b: Position) => a.tx < b.tx || (a.tx === b.tx && (a.id < b.id || (a.id === b.id && a.n < b.n)));

async function existing(store: Store, id: string, companyId?: string): Promise<WebhookRow> {
  const row = await store.webhooks.byId(id);
  if (!row || (companyId !== undefined && row.company_id !== companyId)) throw new AppError('not_found', `webhook ${id} not found`);
  return row;
}

export async function listWebhooks(store: Store, companyId: string): Promise<WebhookSummary[]> {
  return (await store.webhooks.list(companyId)).map(summary);
}

/** `companyId`: the endpoint must be that company's (the dashboard); the CLI operator reaches every one */
export async function deleteWebhook(store: Store, id: string, companyId?: string): Promise<void> {
  await existing(store, id, companyId);
  await store.webhooks.remove(id);
}

/** a new secret, replacing the old at once (a round in progress signs its next message with it); shown this once */
export async function rotateSecret(
  store: Store,
  id: string,
  companyId?: string,
  secrets: Secrets = secretsFor(undefined),
): Promise<{ webhookId: string; secret: string }> {
  await existing(store, id, companyId);
  const secret = generateSecret();
  await store.webhooks.setSecret(id, sealFor(secrets, secret, id));
  return { webhookId: id, secret };
}

/** enables a disabled endpoint: it is tried again at once, from where it stopped */
export async function enableWebhook(store: Store, id: string, companyId?: string, now = Date.now()): Promise<void> {
  await existing(store, id, companyId);
  await store.webhooks.setEnabled(id, null, now);
}

/**
 * Re-sends the endpoint's events from the first one at or after `since`, with
 * their own webhook-ids. The rewind bumps the endpoint's generation: a round
 * delivering to it meanwhile stops without writing its own position over it.
 */
export async function replayWebhook(
  store: Store,
  id: string,
  since: number,
  companyId?: string,
  now = Date.now(),
): Promise<{ from: string }> {
  if (!Number.isFinite(since)) throw validation('since: not an ISO 8601 instant');
  if (since > now) throw validation('since: in the future; a replay re-sends events already written');
  const row = await existing(store, id, companyId);
  const found = (await store.events.since(row.company_id, since)) ?? (await store.events.end());
  // A replay moves the endpoint back, never forward: from an instant after events it has not
  // delivered yet (retrying the first of them), it would skip them for good.
  const current = { tx: Number(row.pos_tx), id: Number(row.pos_id), n: Number(row.pos_n) };
  const from = isBefore(current, found) ? current : found;
  await store.webhooks.rewind(id, from, now);
  return { from: new Date(since).toISOString() };
}

export interface DeliverySummary {
  messageId: string;
  type: string;
  try: number;
  ok: boolean;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  at: string;
}

/** the latest tries, newest first (`leadline webhook deliveries`) */
export async function listDeliveries(
  store: Store,
  id: string,
  o: { failedOnly?: boolean; limit?: number; companyId?: string } = {},
): Promise<DeliverySummary[]> {
  return (await deliveryPage(store, id, o)).tries;
}

/**
 * One page of the log, newest first, and where the next (older) one starts:
 * a try's id, so a page costs the same deep in a long log (the dashboard).
 */
export async function deliveryPage(
  store: Store,
  id: string,
  o: { failedOnly?: boolean; limit?: number; companyId?: string; before?: number },
): Promise<{ tries: DeliverySummary[]; next: number | null }> {
  await existing(store, id, o.companyId);
  const limit = o.limit ?? 100;
  const rows = await store.webhooks.deliveries(id, o.failedOnly ?? false, limit + 1, o.before);
  const tries = rows.slice(0, limit);
  return {
    tries: tries.map((d: DeliveryRow) => ({
      messageId: d.message_id,
      type: d.event_type,
      try: d.try,
      ok: d.ok === 1,
      statusCode: d.status_code,
      latencyMs: d.latency_ms,
      error: d.error,
      at: new Date(d.created_at).toISOString(),
    })),
    next: rows.length > limit ? tries.at(-1)!.id : null,
  };
}
