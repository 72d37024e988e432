/** Company settings → Webhooks: the endpoints, creating one (secret shown once), rotate, enable, delete, and each one's log. */
import type { CampaignTable } from '../../db/schema.js';
import { EVENT_TYPES } from '../../store/events.js';
import { type Html, html, href, seg } from '../html.js';
import { eventField, type WebhookView } from '../webhooks.js';
import { settingsTabs } from './keys.js';
import { badge, confirmPage, csrfField, fieldState, notice, page, type Viewer, when } from './layout.js';

const DONE: Record<string, string> = {
  deleted: 'The endpoint was deleted, with its delivery log. Nothing more is sent to it.',
  enabled: 'The endpoint was enabled: it is tried again at once, from the event where it stopped.',
};

const path = (w: { webhookId: string }, action = '') => href(`/settings/webhooks/${seg(w.webhookId)}${action}`);
const events = (w: WebhookView) => (w.events === 'all' ? 'All events' : w.events.join(', '));
const reach = (w: WebhookView) => (w.campaignId === null ? 'All campaigns' : `Campaign: ${w.campaignName}`);

function status(v: Viewer, w: WebhookView): Html {
  if (w.status === 'disabled') {
    return html`${badge('disabled')}<div class="muted">${w.disabledReason ?? ''}</div>
<form method="post" action="${path(w, '/enable')}">${csrfField(v.csrfToken)}<button type="submit" class="small">Enable</button></form>`;
  }
  return html`${badge('enabled')}${w.failingSince ? html`<div class="muted">failing since ${when(Date.parse(w.failingSince))}</div>` : ''}`;
}

function createForm(
  v: Viewer,
  campaigns: readonly CampaignTable[],
  o: { error?: { field: 'url'; message: string }; values?: Record<string, string | undefined> },
): Html {
  const values = o.values ?? {};
  const url = fieldState('url', o.error ? [o.error] : []);
  return html`<div class="card" id="create">
<h2>Add an endpoint</h2>
<form method="post" action="${href('/settings/webhooks')}">
  ${csrfField(v.csrfToken)}
  <div class="field"><label for="f-url">URL</label>
    <input id="f-url" name="url" type="url" required maxlength="2000" value="${values.url ?? ''}" placeholder="https://crm.example.com/leadline"${url.attrs}>
    ${url.message}
    <div class="hint">Events are POSTed there, signed (Standard Webhooks). Internal addresses are refused at delivery unless OUTBOUND_ALLOW allows them.</div></div>
  <fieldset class="field"><legend>Events <span class="muted">(none ticked: every type)</span></legend>
    ${EVENT_TYPES.map((t) => html`<label><input type="checkbox" name="${eventField(t)}" value="on"${values[eventField(t)] !== undefined ? html` checked` : ''}> <span class="mono">${t}</span></label>`)}
  </fieldset>
  <div class="field"><label for="f-campaignId">Campaign</label>
    <select id="f-campaignId" name="campaignId">
      <option value="">All campaigns of the company</option>
      ${campaigns.map((c) => html`<option value="${c.id}"${values.campaignId === c.id ? html` selected` : ''}>Only campaign: ${c.name}</option>`)}
    </select></div>
  <button type="submit">Add endpoint</button>
</form>
</div>`;
}

export function webhooksPage(
  v: Viewer,
  o: {
    hooks: readonly WebhookView[];
    campaigns: readonly CampaignTable[];
    error?: { field: 'url'; message: string };
    values?: Record<string, string | undefined>;
    done?: string;
  },
): string {
  const rows = o.hooks.map(
    (w) => html`<tr>
  <td><span class="mono">${w.url}</span><div class="muted mono">${w.webhookId}</div></td>
  <td>${events(w)}</td>
  <td>${reach(w)}</td>
  <td>${status(v, w)}</td>
  <td>${when(Date.parse(w.createdAt))}</td>
  <td><a class="button secondary small" href="${path(w, '/deliveries')}">Deliveries</a>
    <a class="button secondary small" href="${path(w, '/rotate')}">Rotate secret…</a>
    <a class="button secondary small" href="${path(w, '/delete')}">Delete…</a></td>
</tr>`,
  );
  return page(
    { title: 'Webhooks', section: 'settings', viewer: v },
    html`<h1>Company settings</h1>
<p class="sub">${v.companyName}</p>
${settingsTabs('webhooks')}
${notice('ok', o.done ? DONE[o.done] : null)}
<p>Endpoints that receive ${v.companyName}'s events, signed, in order, at least once (see the docs' "Events out").</p>
<table>
<thead><tr><th>URL</th><th>Events</th><th>Campaigns</th><th>Status</th><th>Created</th><th><span class="muted">Action</span></th></tr></thead>
<tbody>${rows.length ? rows : html`<tr><td colspan="6" class="empty">No endpoints yet.</td></tr>`}</tbody>
</table>
${createForm(v, o.campaigns, o)}`,
  );
}

/** the only time a secret is ever shown: after creating the endpoint, or rotating its secret */
export function secretShownPage(v: Viewer, w: WebhookView, secret: string, o: { rotated: boolean }): string {
  return page(
    { title: o.rotated ? 'Secret rotated' : 'Endpoint added', section: 'settings', viewer: v },
    html`<h1>${o.rotated ? 'Secret rotated' : 'Endpoint added'}</h1>
<p class="sub"><span class="mono">${w.url}</span> · ${events(w)} · ${reach(w)}</p>
<div class="notice warn" role="alert">
  <p><strong>Copy this signing secret now. It is shown this once and cannot be shown again.</strong></p>
  <p>${o.rotated ? 'The old secret stopped working at once: deliveries from now on are signed with this one.' : 'The endpoint receives the events committed from now on.'} If you lose it, rotate it.</p>
</div>
<div class="card">
  <div class="secret">
    <code id="secret-value">${secret}</code>
    <button type="button" data-copy="secret-value" data-status="copy-status" hidden>Copy</button>
  </div>
  <p id="copy-status" class="muted" role="status"></p>
  <p class="muted">Endpoint id: <span class="mono">${w.webhookId}</span></p>
  <a class="button secondary" href="${href('/settings/webhooks')}">I have stored it: back to webhooks</a>
</div>`,
  );
}

export function deleteWebhookPage(v: Viewer, w: WebhookView): string {
  return confirmPage(v, {
    title: 'Delete webhook endpoint',
    section: 'settings',
    question: html`<p>Delete the endpoint <strong class="mono">${w.url}</strong> (${events(w)}, ${reach(w)})?</p>
<p>Nothing more is sent to it, and its delivery log is deleted with it. This cannot be undone.</p>`,
    action: path(w, '/delete'),
    button: 'Delete endpoint',
    cancel: href('/settings/webhooks'),
  });
}

export function rotateWebhookPage(v: Viewer, w: WebhookView): string {
  return confirmPage(v, {
    title: 'Rotate signing secret',
    section: 'settings',
    question: html`<p>Make a new signing secret for <strong class="mono">${w.url}</strong>?</p>
<p>The current secret stops working at once: the receiver must be given the new one, shown once on the next page.</p>`,
    action: path(w, '/rotate'),
    button: 'Rotate secret',
    cancel: href('/settings/webhooks'),
  });
}
