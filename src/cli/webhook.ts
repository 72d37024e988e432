import { zonedInstant } from '../leads/formats.js';
import type { Command } from 'commander';
import { secretsFor } from '../crypto/secrets.js';
import { type OutboundAllow, OutboundPolicy } from '../net/outbound.js';
import { output, requireCompany, UsageError, withStore } from './context.js';
import {
  createWebhook,
  deleteWebhook,
  enableWebhook,
  listDeliveries,
  listWebhooks,
  replayWebhook,
  rotateSecret,
} from '../webhooks/service.js';

/**
 * Why `leadline serve` will refuse to deliver to the URL, when that is known now: an internal
 * address (or localhost) that OUTBOUND_ALLOW does not list. Said at create time, since the
 * deliveries would otherwise fail quietly in the server's log, each waiting its retry. A host
 * name is checked only when it is resolved, at delivery.
 */
function deliveryRefusal(raw: string, allow: OutboundAllow): string | null {
  const url = new URL(raw);
  if (url.hostname.toLowerCase() === 'localhost') url.hostname = '127.0.0.1';
  return new OutboundPolicy(allow).checkUrl(url);
}

const ONCE = '(the secret is shown this once; `leadline webhook rotate-secret` makes a new one)';

export function registerWebhook(program: Command): void {
  const webhook = program.command('webhook').description('webhook endpoints: signed events delivered by `leadline serve`');
  webhook
    .command('create')
    .requiredOption('--company <id>', 'owning company')
    .requiredOption('--url <url>', 'where events are POSTed (http or https; subject to OUTBOUND_ALLOW)')
    .option('--events <types>', 'comma-separated event types (default: every type)')
    .option('--campaign <id>', "only this campaign's events")
    .option('--json', 'print JSON')
    .action((o) =>
      withStore(async (store, config) => {
        const events = o.events === undefined ? undefined : String(o.events).split(',');
        if (events?.every((e) => e.trim() === '')) throw new UsageError('--events needs at least one event type');
        const created = await createWebhook(
          store,
          { companyId: o.company, url: o.url, events, campaignId: o.campaign },
          Date.now(),
          secretsFor(config.secretKey),
        );
        output(o.json, created, `webhookId: ${created.webhookId}\nsecret:    ${created.secret}\n${ONCE}`);
        const refusal = deliveryRefusal(o.url, config.outboundAllow);
        if (refusal) process.stderr.write(`warning: every delivery will be ${refusal}\n`);
      }),
    );
  webhook
    .command('list')
    .requiredOption('--company <id>', 'company')
    .option('--json', 'print JSON')
    .action((o) =>
      withStore(async (store) => {
        await requireCompany(store, o.company);
        const hooks = await listWebhooks(store, o.company);
        const lines = hooks.map(
          (h) =>
            `${h.webhookId}  ${h.status.padEnd(8)}  ${h.url}  ${h.campaignId ?? 'all campaigns'}  ${h.events === 'all' ? 'all events' : h.events.join(',')}${h.disabledReason ? `  (${h.disabledReason})` : ''}`,
        );
        output(o.json, hooks, lines.join('\n') || 'no webhooks');
      }),
    );
  webhook
    .command('delete')
    .argument('<webhookId>')
    .option('--json', 'print JSON')
    .action((id: string, o) =>
      withStore(async (store) => {
        await deleteWebhook(store, id);
        output(o.json, { webhookId: id, deleted: true }, `deleted ${id}`);
      }),
    );
  webhook
    .command('rotate-secret')
    .argument('<webhookId>')
    .option('--json', 'print JSON')
    .action((id: string, o) =>
      withStore(async (store, config) => {
        const rotated = await rotateSecret(store, id, undefined, secretsFor(config.secretKey));
        output(o.json, rotated, `webhookId: ${rotated.webhookId}\nsecret:    ${rotated.secret}\n${ONCE}`);
      }),
    );
  webhook
    .command('enable')
    .argument('<webhookId>')
    .description('re-enable an endpoint disabled after three days of failures')
    .option('--json', 'print JSON')
    .action((id: string, o) =>
      withStore(async (store) => {
        await enableWebhook(store, id);
        output(o.json, { webhookId: id, status: 'enabled' }, `enabled ${id}`);
      }),
    );
  webhook
    .command('deliveries')
    .argument('<webhookId>')
    .option('--failed', 'only failed tries')
    .option('--json', 'print JSON')
    .description('the latest 100 tries, newest first')
    .action((id: string, o) =>
      withStore(async (store) => {
        const tries = await listDeliveries(store, id, { failedOnly: Boolean(o.failed) });
        const lines = tries.map(
          (d) =>
            `${d.at}  ${d.ok ? 'ok    ' : 'failed'}  ${String(d.statusCode ?? '-').padEnd(3)}  ${String(d.latencyMs).padStart(5)} ms  try ${d.try}  ${d.type}  ${d.messageId}${d.error ? `  ${d.error}` : ''}`,
        );
        output(o.json, tries, lines.join('\n') || 'no deliveries');
      }),
    );
  webhook
    .command('replay')
    .argument('<webhookId>')
    .requiredOption('--since <iso>', 're-send the events from this instant on (ISO 8601)')
    .option('--json', 'print JSON')
    .action((id: string, o) =>
      withStore(async (store) => {
        // zoned, and a real date: Date.parse read 2026-02-30T00:00:00Z as March 2nd
        const since = zonedInstant(o.since);
        if (Number.isNaN(since)) {
          throw new UsageError(`--since must be an ISO 8601 instant with its zone, such as 2026-01-31T00:00:00Z, got "${o.since}"`);
        }
        const replay = await replayWebhook(store, id, since);
        output(o.json, { webhookId: id, ...replay }, `${id} re-sends its events from ${replay.from}`);
      }),
    );
}
