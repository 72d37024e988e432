/** A campaign's leads table, and one lead. */
import type { CampaignTable } from '../../db/schema.js';
import type { Counts, LeadView } from '../dashboard.js';
import { type Html, html, href, seg } from '../html.js';
import { badge, confirmPage, count, notice, page, type Viewer, when } from './layout.js';
import { LEAD_STATUSES } from '../../leads/lifecycle.js';

export interface LeadsView {
  campaign: CampaignTable;
  counts: Counts;
  leads: readonly LeadView[];
  status?: string;
  q?: string;
  /** the cursor this page started from, if not the first */
  cursor?: string;
  next: string | null;
  /** a search found more leads than it shows */
  more?: boolean;
  /** the previous page's cursor (null: the first page); undefined on the first page */
  previous?: string | null;
  done?: string;
  /** leads recycled by the POST that led here */
  recycled?: number;
  /** the dialer's part: the recycle button */
  actions?: Html;
}

const leadPath = (c: CampaignTable, l: LeadView) => href(`/campaigns/${seg(c.id)}/leads/${seg(l.id)}`);

function table(c: CampaignTable, leads: readonly LeadView[], empty: string): Html {
  return html`<table>
<thead><tr><th>Phone number</th><th>External id</th><th>Status</th><th class="num">Priority</th><th class="num">Attempts</th><th>Scheduled for</th><th>Created</th></tr></thead>
<tbody>${
    leads.length
      ? leads.map(
          (l) => html`<tr>
  <td><a href="${leadPath(c, l)}" class="mono">${l.phoneNumber ?? '(from predial)'}</a></td>
  <td class="mono">${l.externalId ?? ''}</td>
  <td>${badge(l.status)}</td>
  <td class="num">${l.priority}</td>
  <td class="num">${l.attempts}</td>
  <td>${l.scheduledFor ? when(Date.parse(l.scheduledFor)) : html`<span class="muted">as soon as allowed</span>`}</td>
  <td>${when(l.createdAt)}</td>
</tr>`,
        )
      : html`<tr><td colspan="7" class="empty">${empty}</td></tr>`
  }</tbody>
</table>`;
}

export function leadsPage(v: Viewer, o: LeadsView): string {
  const c = o.campaign;
  const base = `/campaigns/${seg(c.id)}/leads`;
  const searching = Boolean(o.q);
  return page(
    { title: `${c.name}: leads`, section: 'campaigns', viewer: v },
    html`<h1>${c.name}</h1>
<p class="sub">${count(o.counts.total)} leads · ${LEAD_STATUSES.map((s, i) => html`${i ? ' · ' : ''}${count(o.counts[s])} ${s}`)} ·
  <a href="${href(`/campaigns/${seg(c.id)}/next-up`)}">Next up</a> · <a href="${href(`/campaigns/${seg(c.id)}`)}">Settings</a></p>
${notice('ok', o.done === 'deleted' ? 'The lead was deleted.' : o.done === 'recycled' ? `${o.recycled ?? 0} lead${o.recycled === 1 ? ' was' : 's were'} recycled and will be called again.` : null)}
${o.actions ?? ''}
<form method="get" action="${href(base)}" class="toolbar" role="search">
  <div class="field"><label for="status">Status</label>
    <select id="status" name="status"><option value="">all</option>${LEAD_STATUSES.map((s) => html`<option${o.status === s ? html` selected` : ''}>${s}</option>`)}</select></div>
  <div class="field"><label for="q">Phone number or external id, or its start or end</label>
    <input id="q" name="q" type="search" value="${o.q ?? ''}" placeholder="+1415, 4567 or crm-42" maxlength="255"></div>
  <button type="submit">Show</button>
  ${o.status || o.q ? html`<a class="button secondary" href="${href(base)}">Clear</a>` : ''}
</form>
${searching ? html`<p class="muted">Leads whose phone number or external id starts or ends with “${o.q}”, exact matches first, then oldest first${o.status ? ' (the status filter does not apply to a search)' : ''}.</p>` : ''}
${notice('warn', o.more ? `More than ${o.leads.length} leads match; ${o.leads.length} are shown. Type more of the number or id to narrow it.` : null)}
${table(c, o.leads, searching ? 'No phone number or external id starts or ends with that.' : 'No leads here yet.')}
${
  searching
    ? ''
    : html`<nav class="pager" aria-label="Pages">
  ${o.cursor ? html`<a class="button secondary" href="${href(base, { status: o.status })}">First page</a>` : ''}
  ${o.previous !== undefined ? html`<a class="button secondary" rel="prev" href="${href(base, { status: o.status, cursor: o.previous ?? undefined })}">Previous page</a>` : ''}
  ${o.next ? html`<a class="button secondary" rel="next" href="${href(base, { status: o.status, cursor: o.next })}">Next page</a>` : ''}
  <span class="muted">${o.leads.length} shown, oldest first</span>
</nav>`
}`,
  );
}

export interface LeadDetail {
  campaign: CampaignTable;
  lead: LeadView;
  /** the dialer's parts (attempt history, explain) when available */
  dialer?: Html;
}

export function leadPage(v: Viewer, o: LeadDetail): string {
  const { campaign: c, lead: l } = o;
  let metadata = l.metadata;
  try {
    metadata = JSON.stringify(JSON.parse(l.metadata), null, 2);
  } catch {
    // shown as stored
  }
  return page(
    { title: `Lead ${l.phoneNumber ?? l.externalId ?? l.id}`, section: 'campaigns', viewer: v },
    html`<h1>Lead ${l.phoneNumber ?? l.externalId ?? l.id}</h1>
<p class="sub"><a href="${href(`/campaigns/${seg(c.id)}/leads`)}">${c.name}</a> · <span class="mono">${l.id}</span></p>
<div class="columns">
<div class="card">
  <h2>Lead</h2>
  <dl class="props">
    <dt>Status</dt><dd>${badge(l.status)}</dd>
    <dt>Phone number</dt><dd class="mono">${l.phoneNumber ?? 'none: fetched by the predial function before each call'}</dd>
    <dt>External id</dt><dd class="mono">${l.externalId ?? '—'}</dd>
    <dt>Priority</dt><dd>${l.priority}</dd>
    <dt>Attempts</dt><dd>${l.attempts} of ${c.max_attempts + l.extraAttempts}${l.extraAttempts ? html` <span class="muted">(the campaign's ${c.max_attempts}, ${l.extraAttempts > 0 ? '+' : ''}${l.extraAttempts} from recycling)</span>` : ''}</dd>
    <dt>Scheduled for</dt><dd>${l.scheduledFor ? when(Date.parse(l.scheduledFor)) : 'as soon as allowed'}</dd>
    <dt>Created</dt><dd>${when(l.createdAt)}</dd>
  </dl>
  <div class="actions"><a class="button secondary" href="${leadPath(c, l)}/delete">Delete lead…</a></div>
</div>
<div class="card"><h2>Metadata</h2><pre>${metadata}</pre></div>
</div>
${o.dialer ?? ''}`,
  );
}

export function deleteLeadPage(v: Viewer, c: CampaignTable, l: LeadView): string {
  return confirmPage(v, {
    title: 'Delete lead',
    section: 'campaigns',
    question: html`<p>Delete the lead <strong class="mono">${l.phoneNumber ?? l.externalId}</strong> from ${c.name}?</p>
<p>It is removed permanently, and its number with it, from its call history too: its calls stay counted, without the number, for the campaign's figures and the call caps. This cannot be undone.</p>`,
    action: `${leadPath(c, l)}/delete`,
    button: 'Delete lead',
    cancel: leadPath(c, l),
  });
}
