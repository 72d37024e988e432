/** The dialer's parts of the pages: calls today, last attempts, a lead's history and explain, recycling. */
import type { CampaignTable } from '../../db/schema.js';
import type { DueReason } from '../../dialer/due.js';
import type { Activity, LeadDialerView } from '../activity.js';
import type { AttemptRow } from '../../store/attempts.js';
import type { LeadView } from '../dashboard.js';
import { type Html, html, href, seg } from '../html.js';
import { callChart } from './chart.js';
import { confirmPage, count, type Viewer, when } from './layout.js';

const REASONS: Record<DueReason, string> = {
  'already concluded': 'A call succeeded: it will not be called again.',
  'attempts used up': "All its attempts are used. Recycling the campaign's exhausted leads gives it more.",
  'scheduled later': 'Its scheduled time, or the retry delay after its last attempt, has not come yet.',
  'outside hours': "It is outside the campaign's calling hours.",
  'local time': "It is outside the called person's local window (their time zone comes from the number).",
  'closed date': "It is one of the campaign's closed dates on the called person's calendar: nobody is called that day.",
  "outside the state's calling hours":
    "The number's US state allows automated calls only at certain hours and days (the campaign's state calling rules are on): the call waits for them.",
  'claimed by another worker': 'A dialer is calling it right now.',
  'campaign paused': 'The campaign is paused: no call is placed until it is resumed.',
  "on the company's do-not-call list": "Its number is on the company's do-not-call list: it is not called until the number is removed.",
  "at the company's per-number call cap":
    "Its number was called as often as the company's call caps allow, across all the company's campaigns.",
  'no consent recorded': 'The campaign requires consent, and the lead has no consentAt timestamp in its metadata.',
};

const outcome = (a: AttemptRow) => html`<span class="badge ${a.success ? 'concluded' : 'exhausted'}">${a.outcome}</span>`;

/** a duration for people: 4.2 s, 3 min 5 s */
function seconds(s: number | null): string {
  if (s === null) return '—';
  if (s < 60) return `${s.toFixed(1)} s`;
  return `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`;
}

export function activitySection(a: Activity): Html {
  const stat = (n: number, label: string) => html`<div class="stat"><div class="n">${count(n)}</div><div class="l">${label}</div></div>`;
  return html`<h2>Calls today <span class="muted">(since ${when(a.since)})</span></h2>
<div class="stats">${stat(a.calls, 'calls')}${stat(a.successes, 'succeeded')}${stat(a.calls - a.successes, 'failed')}</div>
<h2>Calls per hour <span class="muted">(last 24 hours, by outcome)</span></h2>
${callChart(a.hourly)}
<p class="durations">Attempt duration (start to close, ${count(a.durations.closed)} closed in 24 h): <strong>${seconds(a.durations.meanAttemptMs === null ? null : a.durations.meanAttemptMs / 1000)}</strong> on average ·
  call duration reported by the provider (${count(a.durations.timed)} calls): <strong>${seconds(a.durations.meanCallSeconds)}</strong> on average</p>
<h2>Last attempts</h2>
<table>
<thead><tr><th>Started</th><th>Campaign</th><th>Lead</th><th class="num">Attempt</th><th>Outcome</th><th>Reason</th></tr></thead>
<tbody>${
    a.last.length
      ? a.last.map(
          (x) => html`<tr><td>${when(x.started_at)}</td><td>${x.campaignName}</td>
  <td><a class="mono" href="${href(`/campaigns/${seg(x.campaign_id)}/leads/${seg(x.lead_id)}`)}">${x.phone_number ?? x.lead_id}</a></td>
  <td class="num">${x.attempt}</td><td>${outcome(x)}</td><td>${x.reason ?? ''}</td></tr>`,
        )
      : html`<tr><td colspan="6" class="empty">No calls yet. Start one with <code>leadline dialer</code>.</td></tr>`
  }</tbody>
</table>`;
}

export function leadDialerSection(lead: LeadView, d: LeadDialerView): Html {
  const e = d.explanation;
  const verdict = e.due
    ? 'Due now: a running dialer calls it at its next pass, by priority.'
    : html`Not being called now.${e.nextDueAt ? html` Next due at <strong>${when(e.nextDueAt.getTime())}</strong>.` : lead.status === 'concluded' || e.reasons.includes('attempts used up') ? '' : ' No time in the coming week fits both its calling hours and its local window.'}`;
  return html`<div class="card">
<h2>Why is this lead ${e.due ? '' : 'not '}being called?</h2>
<p>${verdict}</p>
${e.reasons.length ? html`<ul>${e.reasons.map((r) => html`<li>${REASONS[r] ?? r}${e.details[r] ? html` <span class="muted">(${e.details[r]})</span>` : ''}</li>`)}</ul>` : ''}
<p class="muted">The same answer as <code>leadline lead explain</code>.</p>
</div>
<h2>Attempts</h2>
<table>
<thead><tr><th class="num">#</th><th>Started</th><th>Finished</th><th>Outcome</th><th>Number dialled</th><th>Reason</th></tr></thead>
<tbody>${
    d.attempts.length
      ? d.attempts.map(
          (a) => html`<tr><td class="num">${a.attempt}</td><td>${when(a.started_at)}</td><td>${when(a.finished_at)}</td>
  <td>${outcome(a)}</td><td class="mono">${a.phone_number ?? '—'}</td><td>${a.reason ?? ''}</td></tr>`,
        )
      : html`<tr><td colspan="6" class="empty">Not called yet.</td></tr>`
  }</tbody>
</table>`;
}

export function recycleAction(c: CampaignTable, exhausted: number): Html {
  return exhausted > 0
    ? html`<div class="notice warn"><p>${count(exhausted)} lead${exhausted === 1 ? ' has' : 's have'} used all attempts.
  <a class="button secondary small" href="${href(`/campaigns/${seg(c.id)}/recycle`)}">Recycle exhausted leads…</a></p></div>`
    : html``;
}

export function recyclePage(v: Viewer, c: CampaignTable, exhausted: number): string {
  return confirmPage(v, {
    title: 'Recycle exhausted leads',
    section: 'campaigns',
    question: html`<p>Give the ${count(exhausted)} exhausted lead${exhausted === 1 ? '' : 's'} of <strong>${c.name}</strong>
  ${c.max_attempts} more attempt${c.max_attempts === 1 ? '' : 's'} each (the campaign's maximum)?</p>
<p>They move back to <em>attempting</em> and are called again, in their original order, within the calling hours.</p>`,
    action: href(`/campaigns/${seg(c.id)}/recycle`),
    button: 'Recycle leads',
    cancel: href(`/campaigns/${seg(c.id)}/leads`),
    safe: true,
  });
}
