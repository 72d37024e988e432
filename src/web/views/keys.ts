/** Company settings → API keys. */
import type { CampaignTable } from '../../db/schema.js';
import type { Dashboard } from '../dashboard.js';
import { type Html, html, href, seg } from '../html.js';
import { badge, confirmPage, csrfField, notice, page, type Viewer, when } from './layout.js';

type Key = Awaited<ReturnType<Dashboard['keys']>>[number];

const TABS = [
  ['keys', 'API keys', '/settings/keys'],
  ['users', 'Users', '/settings/users'],
  ['webhooks', 'Webhooks', '/settings/webhooks'],
  ['dnc', 'Do-not-call list', '/settings/dnc'],
] as const;

export function settingsTabs(active: (typeof TABS)[number][0]): Html {
  return html`<nav class="tabs" aria-label="Company settings">
  ${TABS.map(([tab, label, path]) => html`<a href="${href(path)}"${active === tab ? html` aria-current="page"` : ''}>${label}</a>`)}
</nav>`;
}

const reach = (k: Key) => (k.campaignId === null ? 'All campaigns' : `Campaign: ${k.campaignName}`);
const scope = (s: string) => (s === 'write' ? 'read + write' : 'read');

function createForm(v: Viewer, campaigns: readonly CampaignTable[], o: { error?: string; values?: Record<string, string | undefined> }) {
  const values = o.values ?? {};
  const chosenScope = values.scope ?? 'read';
  return html`<div class="card" id="create">
<h2>Create a key</h2>
${notice('error', o.error)}
<form method="post" action="${href('/settings/keys')}">
  ${csrfField(v.csrfToken)}
  <div class="field"><label for="key-name">Name</label>
    <input id="key-name" name="name" type="text" required maxlength="100" value="${values.name ?? ''}" placeholder="e.g. CRM importer">
    <div class="hint">Say what uses it, so you know what breaks if you revoke it.</div></div>
  <fieldset class="field"><legend>Scope</legend>
    <label><input type="radio" name="scope" value="read"${chosenScope === 'read' ? html` checked` : ''}> read <span class="muted">(list leads)</span></label>
    <label><input type="radio" name="scope" value="write"${chosenScope === 'write' ? html` checked` : ''}> read + write <span class="muted">(also create and delete leads)</span></label>
  </fieldset>
  <div class="field"><label for="key-reach">Reach</label>
    <select id="key-reach" name="campaignId">
      <option value="">All campaigns of the company</option>
      ${campaigns.map((c) => html`<option value="${c.id}"${values.campaignId === c.id ? html` selected` : ''}>Only campaign: ${c.name}</option>`)}
    </select></div>
  <button type="submit">Create key</button>
</form>
</div>`;
}

export function keysPage(
  v: Viewer,
  o: {
    keys: readonly Key[];
    campaigns: readonly CampaignTable[];
    error?: string;
    values?: Record<string, string | undefined>;
    done?: string;
  },
): string {
  const rows = o.keys.map(
    (k) => html`<tr>
  <td>${k.name}<div class="muted mono">${k.keyId}</div></td>
  <td>${scope(k.scope)}</td>
  <td>${reach(k)}</td>
  <td>${when(Date.parse(k.createdAt))}</td>
  <td>${k.lastUsedAt ? when(Date.parse(k.lastUsedAt)) : html`<span class="muted">never</span>`}</td>
  <td>${badge(k.status)}</td>
  <td>${k.status === 'active' ? html`<a class="button secondary small" href="${href(`/settings/keys/${seg(k.keyId)}/revoke`)}">Revoke…</a>` : ''}</td>
</tr>`,
  );
  return page(
    { title: 'API keys', section: 'settings', viewer: v },
    html`<h1>Company settings</h1>
<p class="sub">${v.companyName}</p>
${settingsTabs('keys')}
${notice('ok', o.done === 'revoked' ? 'The key was revoked. Requests with it are refused from now on.' : null)}
<p>Send a key in the <code>x-api-key</code> header of every request to <code>/api/v1</code>.</p>
<table>
<thead><tr><th>Name</th><th>Scope</th><th>Reach</th><th>Created</th><th>Last used</th><th>Status</th><th><span class="muted">Action</span></th></tr></thead>
<tbody>${rows.length ? rows : html`<tr><td colspan="7" class="empty">No keys yet.</td></tr>`}</tbody>
</table>
${createForm(v, o.campaigns, o)}`,
  );
}

/** the only time a key value is ever shown */
export function keyCreatedPage(v: Viewer, o: { key: string; keyId: string; name: string; scope: string; reach: string }): string {
  return page(
    { title: 'Key created', section: 'settings', viewer: v },
    html`<h1>Key created</h1>
<p class="sub">${o.name} · ${scope(o.scope)} · ${o.reach}</p>
<div class="notice warn" role="alert">
  <p><strong>Copy this key now. It is shown this once and cannot be shown again.</strong></p>
  <p>leadline keeps only a hash of it. If you lose it, revoke it and create a new one.</p>
</div>
<div class="card">
  <div class="secret">
    <code id="key-value">${o.key}</code>
    <button type="button" data-copy="key-value" data-status="copy-status" hidden>Copy</button>
  </div>
  <p id="copy-status" class="muted" role="status"></p>
  <p class="muted">Key id (safe to share; used to revoke): <span class="mono">${o.keyId}</span></p>
  <a class="button secondary" href="${href('/settings/keys')}">I have stored it: back to API keys</a>
</div>`,
  );
}

export function revokeKeyPage(v: Viewer, k: Key): string {
  return confirmPage(v, {
    title: 'Revoke API key',
    section: 'settings',
    question: html`<p>Revoke <strong>${k.name}</strong> (${scope(k.scope)}, ${reach(k)})?</p>
<p>Every request using it will be refused within a second. This cannot be undone.</p>`,
    action: href(`/settings/keys/${seg(k.keyId)}/revoke`),
    button: 'Revoke key',
    cancel: href('/settings/keys'),
  });
}

export const reachLabel = reach;
