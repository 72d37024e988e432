/** Company settings → Webhooks → one endpoint's delivery log: every try, newest first, failed only on demand. */
import type { DeliverySummary } from '../../webhooks/service.js';
import { html, href, seg } from '../html.js';
import type { WebhookView } from '../webhooks.js';
import { settingsTabs } from './keys.js';
import { badge, page, type Viewer, when } from './layout.js';

export function deliveriesPage(
  v: Viewer,
  o: { hook: WebhookView; tries: readonly DeliverySummary[]; failedOnly: boolean; before?: string; next: string | null },
): string {
  const base = `/settings/webhooks/${seg(o.hook.webhookId)}/deliveries`;
  const failed = o.failedOnly ? '1' : undefined;
  const rows = o.tries.map(
    (d) => html`<tr>
  <td>${when(Date.parse(d.at), { seconds: true })}</td>
  <td><span class="mono">${d.type}</span><div class="muted mono">${d.messageId}</div></td>
  <td class="num">${d.try}</td>
  <td>${badge(d.ok ? 'ok' : 'failed')}${d.error ? html`<div class="muted">${d.error}</div>` : ''}</td>
  <td class="num">${d.statusCode ?? html`<span class="muted">none</span>`}</td>
  <td class="num">${d.latencyMs} ms</td>
</tr>`,
  );
  const empty = o.before ? 'No older tries.' : o.failedOnly ? 'No failed tries are logged.' : 'No tries are logged yet.';
  return page(
    { title: 'Webhook deliveries', section: 'settings', viewer: v },
    html`<h1>Company settings</h1>
<p class="sub">${v.companyName}</p>
${settingsTabs('webhooks')}
<h2>Deliveries to <span class="mono">${o.hook.url}</span></h2>
<p class="muted">${o.hook.webhookId} · ${badge(o.hook.status)}${o.hook.disabledReason ? ` ${o.hook.disabledReason}` : ''} ·
  <a href="${href('/settings/webhooks')}">All endpoints</a></p>
<form method="get" action="${href(base)}" class="toolbar">
  <div class="field"><label><input type="checkbox" name="failed" value="1"${o.failedOnly ? html` checked` : ''}> Failed only</label></div>
  <button type="submit">Show</button>
</form>
<table>
<thead><tr><th>Time</th><th>Event</th><th class="num">Try</th><th>Result</th><th class="num">Response</th><th class="num">Latency</th></tr></thead>
<tbody>${rows.length ? rows : html`<tr><td colspan="6" class="empty">${empty}</td></tr>`}</tbody>
</table>
<nav class="pager" aria-label="Pages">
  ${o.before ? html`<a class="button secondary" href="${href(base, { failed })}">Newest</a>` : ''}
  ${o.next !== null ? html`<a class="button secondary" rel="next" href="${href(base, { failed, before: o.next })}">Older</a>` : ''}
  <span class="muted">${o.tries.length} shown, newest first; tries older than EVENT_RETENTION are pruned</span>
</nav>`,
  );
}
