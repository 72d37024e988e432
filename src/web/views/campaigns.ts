/** The campaign list and the campaign settings form (create and edit). */
import { PROVIDERS } from '../../campaigns/settings.js';
import type { CampaignTable } from '../../db/schema.js';
import { LABELS, type Field, type FormValues } from '../campaign-form.js';
import type { CampaignSummary } from '../dashboard.js';
import { type Html, html, href, seg } from '../html.js';
import { confirmPage, count, csrfField, fieldState, notice, page, type Viewer } from './layout.js';
import { LEAD_STATUSES } from '../../leads/lifecycle.js';

const DONE: Record<string, (n: string | undefined) => string> = {
  created: () => 'Campaign created.',
  deleted: (n) => `Campaign deleted, with its ${n ?? 0} lead${n === '1' ? '' : 's'}.`,
};

export function campaignsPage(v: Viewer, campaigns: readonly CampaignSummary[], done?: string, n?: string): string {
  const rows = campaigns.map(
    ({ campaign: c, counts }) => html`<tr>
  <td><a href="${href(`/campaigns/${seg(c.id)}/leads`)}"><strong>${c.name}</strong></a><div class="muted mono">${c.id}</div></td>
  ${LEAD_STATUSES.map((s) => html`<td class="num">${counts[s] ? html`<a href="${href(`/campaigns/${seg(c.id)}/leads`, { status: s })}">${count(counts[s])}</a>` : '0'}</td>`)}
  <td class="num">${count(counts.total)}</td>
  <td>${c.hours}<div class="muted">${c.timezone}</div></td>
  <td><a class="button secondary small" href="${href(`/campaigns/${seg(c.id)}`)}">Settings</a></td>
</tr>`,
  );
  return page(
    { title: 'Campaigns', section: 'campaigns', viewer: v },
    html`<h1>Campaigns</h1>
<p class="sub">Lead counts by status; a number opens those leads.</p>
${notice('ok', done && DONE[done] ? DONE[done](n) : null)}
<div class="toolbar"><a class="button" href="${href('/campaigns/new')}">New campaign</a></div>
<table>
<thead><tr><th>Campaign</th>${LEAD_STATUSES.map((s) => html`<th class="num">${s}</th>`)}<th class="num">total</th><th>Calling hours</th><th><span class="muted">Action</span></th></tr></thead>
<tbody>${rows.length ? rows : html`<tr><td colspan="8" class="empty">No campaigns yet.</td></tr>`}</tbody>
</table>`,
  );
}

const HINTS: Partial<Record<Field | 'new_predial_secret', Html | string>> = {
  timezone: 'IANA name, e.g. America/New_York; calling hours are read on its clock.',
  hours: html`e.g. <code>mon-fri 09:00-17:00</code>, <code>mon-fri 09:00-12:00, sat 10:00-14:00</code>, <code>mon-sun 00:00-24:00</code>.`,
  local_window: html`Hours on the called person's own clock (from their number), e.g. <code>08:00-21:00</code>.`,
  closed_dates: html`Dates nobody is called, on the called person's calendar: <code>us-federal</code> (US federal holidays, as observed) and dates like <code>2026-12-24</code>, comma-separated. Empty: none.`,
  require_consent: html`Yes: a lead is called only when its metadata has <code>consentAt</code>, an ISO 8601 timestamp.`,
  regional_rules: html`<code>us</code>: a US number is called only in the hours its state allows automated calls, and not on US federal holidays where its state forbids holiday calls (see docs/compliance.md; not legal advice). <code>off</code>: only the hours above.`,
  max_attempts: 'Failed calls before a lead is exhausted (1–100).',
  retry_delay: html`Wait after a failed attempt, e.g. <code>30m</code>, or per outcome: <code>busy=10m,no-answer=2h,default=30m</code>.`,
  call_timeout: html`An attempt whose outcome has not arrived after this long closes as unknown, e.g. <code>30m</code>.`,
  concurrency: 'Calls at once for this campaign (1–1000).',
  calls_per_second: 'Calls started per second at most, across every dialer, e.g. 1 for Twilio. Empty: no cap.',
  predial_url: 'Looks up the phone number of externalId-only leads before each call. Empty: none.',
  predial_secret: 'Sent to the predial URL. Never shown again; leave empty to keep the current one.',
  // the create form has no current secret to keep
  new_predial_secret: 'Sent to the predial URL. Never shown again; leave empty for none.',
  provider_url: 'Where the webhook provider posts calls. Required for webhook.',
  provider_secret: 'For vapi, retell, bland, twilio: the API key (twilio: the auth token). Never shown again; leave empty to keep it.',
  provider_option: html`One <code>KEY=VALUE</code> a line: vapi <code>assistantId</code>, <code>phoneNumberId</code>; retell <code>fromNumber</code> (and <code>agentId</code>); bland <code>pathwayId</code> or <code>task</code> (and <code>from</code>); twilio <code>accountSid</code>, <code>from</code>, <code>url</code>.`,
  provider_base_url: "The platform's API. Empty: its public one.",
  provider_webhook_secret:
    'The secret the platform signs its webhooks with, where that is not the API key (required for bland). Never shown again.',
  simulate_success: 'For the simulate provider: the share of calls that succeed, 0 to 1.',
  simulate_failures: html`How the simulated calls that fail split; shares adding up to 1, e.g. <code>no-answer=0.6,busy=0.25,voicemail=0.15</code>.`,
  simulate_duration: html`How long a simulated call lasts, e.g. <code>0s</code>, <code>2s</code> or <code>1s-5s</code>.`,
};

type FieldError = { field: Field | 'name'; message: string };

function input(field: Field, values: FormValues, errors: readonly FieldError[], type = 'text', extra: Html | string = '') {
  const state = fieldState(field, errors);
  return html`<div class="field"><label for="f-${field}">${LABELS[field]}</label>
  <input id="f-${field}" name="${field}" type="${type}" value="${values[field] ?? ''}" ${extra}${state.attrs}>
  ${state.message}
  ${HINTS[field] ? html`<div class="hint">${HINTS[field]}</div>` : ''}</div>`;
}

/** a write-only field: never filled in, "(set)" when there is one */
function writeOnly(field: 'provider_secret' | 'provider_webhook_secret', set: boolean, errors: readonly FieldError[]) {
  const state = fieldState(field, errors);
  return html`<div class="field"><label for="f-${field}">${LABELS[field]}${set ? html` <span class="muted">(set)</span>` : ''}</label>
  <input id="f-${field}" name="${field}" type="password" autocomplete="off" value=""${state.attrs}>
  ${state.message}
  <div class="hint">${HINTS[field]}</div></div>`;
}

/** all the errors at once, each a link to its field */
function errorSummary(errors: readonly FieldError[]): Html {
  if (errors.length === 0) return html``;
  return html`<div class="notice error" role="alert"><p>${errors.length === 1 ? 'One field needs' : `${errors.length} fields need`} fixing:</p>
<ul>${errors.map((e) => html`<li><a href="#f-${e.field}">${e.message}</a></li>`)}</ul></div>`;
}

export function campaignFormPage(
  v: Viewer,
  o: {
    campaign: CampaignTable | null;
    values: FormValues;
    error?: string;
    fieldErrors?: readonly FieldError[];
    done?: boolean;
    secretSet?: boolean;
  },
): string {
  const c = o.campaign;
  const values = o.values;
  const errors = o.fieldErrors ?? [];
  const name = fieldState('name', errors);
  const secret = fieldState('predial_secret', errors);
  const action = c ? href(`/campaigns/${seg(c.id)}`) : href('/campaigns');
  const title = c ? `${c.name}: settings` : 'New campaign';
  return page(
    { title, section: 'campaigns', viewer: v },
    html`<h1>${title}</h1>
${c ? html`<p class="sub"><span class="mono">${c.id}</span> · <a href="${href(`/campaigns/${seg(c.id)}/leads`)}">Leads</a> · <a href="${href(`/campaigns/${seg(c.id)}/next-up`)}">Next up</a> · <a href="${href(`/campaigns/${seg(c.id)}/delete`)}">Delete campaign…</a></p>` : html`<p class="sub">Every setting has a sensible default; you can change them later.</p>`}
${notice('ok', o.done ? 'Settings saved.' : null)}
${notice('error', o.error)}
${errorSummary(errors)}
<form method="post" action="${action}" class="card">
  ${csrfField(v.csrfToken)}
  <div class="field"><label for="f-name">Name</label><input id="f-name" name="name" type="text" required maxlength="200" value="${values.name ?? ''}"${c || errors.length ? '' : html` autofocus`}${name.attrs}>${name.message}</div>
  <div class="columns">
    <div>
      <h2>When to call</h2>
      ${input('timezone', values, errors, 'text', html`required list="timezones"`)}
      ${input('hours', values, errors, 'text', 'required')}
      ${input('local_window', values, errors, 'text', 'required')}
      ${input('closed_dates', values, errors, 'text')}
      <div class="field"><label for="f-require_consent">${LABELS.require_consent}</label>
        <select id="f-require_consent" name="require_consent">${['no', 'yes'].map((x) => html`<option${values.require_consent === x ? html` selected` : ''}>${x}</option>`)}</select>
        <div class="hint">${HINTS.require_consent}</div></div>
      <div class="field"><label for="f-regional_rules">${LABELS.regional_rules}</label>
        <select id="f-regional_rules" name="regional_rules">${['us', 'off'].map((x) => html`<option${values.regional_rules === x ? html` selected` : ''}>${x}</option>`)}</select>
        <div class="hint">${HINTS.regional_rules}</div></div>
      ${input('max_attempts', values, errors, 'number', html`required min="1" max="100"`)}
      ${input('retry_delay', values, errors, 'text', 'required')}
      ${input('concurrency', values, errors, 'number', html`required min="1" max="1000"`)}
      ${input('calls_per_second', values, errors, 'text', 'inputmode="decimal"')}
    </div>
    <div>
      <h2>How to call</h2>
      <div class="field"><label for="f-provider">${LABELS.provider}</label>
        <select id="f-provider" name="provider">${PROVIDERS.map((p) => html`<option${values.provider === p ? html` selected` : ''}>${p}</option>`)}</select></div>
      ${input('provider_url', values, errors, 'url')}
      ${writeOnly('provider_secret', c?.provider_secret != null, errors)}
      <div class="field"><label for="f-provider_option">${LABELS.provider_option}</label>
        <textarea id="f-provider_option" name="provider_option" rows="3">${values.provider_option ?? ''}</textarea>
        <div class="hint">${HINTS.provider_option}</div></div>
      ${input('provider_base_url', values, errors, 'url')}
      ${writeOnly('provider_webhook_secret', c?.provider_webhook_secret != null, errors)}
      ${input('simulate_success', values, errors, 'text', 'required inputmode="decimal"')}
      ${input('simulate_failures', values, errors, 'text', 'required')}
      ${input('simulate_duration', values, errors, 'text', 'required')}
      ${input('predial_url', values, errors, 'url')}
      <div class="field"><label for="f-predial_secret">${LABELS.predial_secret}${o.secretSet ? html` <span class="muted">(set)</span>` : ''}</label>
        <input id="f-predial_secret" name="predial_secret" type="password" autocomplete="off" value=""${secret.attrs}>
        ${secret.message}
        <div class="hint">${c ? HINTS.predial_secret : HINTS.new_predial_secret}</div>
        ${o.secretSet ? html`<label class="hint"><input type="checkbox" name="clear_predial_secret" value="1"> Remove the secret</label>` : ''}</div>
    </div>
  </div>
  <div class="actions"><button type="submit">${c ? 'Save settings' : 'Create campaign'}</button>
    <a class="button secondary" href="${href('/campaigns')}">Cancel</a></div>
</form>
<datalist id="timezones">${Intl.supportedValuesOf('timeZone').map((z) => html`<option value="${z}">`)}</datalist>`,
  );
}

export function deleteCampaignPage(v: Viewer, c: CampaignTable, leads: number, keys: number): string {
  return confirmPage(v, {
    title: 'Delete campaign',
    section: 'campaigns',
    question: html`<p>Delete <strong>${c.name}</strong> <span class="mono">${c.id}</span>?</p>
<p>Its ${count(leads)} lead${leads === 1 ? '' : 's'} and their call history are deleted with it, for good: the dialer stops calling them,
  and the API no longer finds them.${keys > 0 ? html` The ${count(keys)} API key${keys === 1 ? '' : 's'} restricted to this campaign ${keys === 1 ? 'is' : 'are'} deleted too.` : ''}</p>
<p>To keep the leads, export them first (<code>leadline export --campaign ${c.id}</code>).</p>`,
    action: href(`/campaigns/${seg(c.id)}/delete`),
    button: 'Delete campaign and leads',
    cancel: href(`/campaigns/${seg(c.id)}`),
  });
}
