/** The overview: is calling happening, at a glance. */
import type { Activity, DialersRunning } from '../activity.js';
import type { CampaignSummary, Counts } from '../dashboard.js';
import { html, href, seg } from '../html.js';
import { activitySection } from './activity.js';
import { count, notice, page, type Viewer } from './layout.js';
import { LEAD_STATUSES } from '../../leads/lifecycle.js';

export function overviewPage(
  v: Viewer,
  o: {
    totals: Counts;
    campaigns: readonly CampaignSummary[];
    activeKeys: number;
    activity: Activity;
    dialers: DialersRunning;
    now: number;
  },
): string {
  const stat = (n: number, label: string) => html`<div class="stat"><div class="n">${count(n)}</div><div class="l">${label}</div></div>`;
  return page(
    { title: 'Overview', section: 'overview', viewer: v },
    html`<h1>Overview</h1>
<p class="sub">${v.companyName} · ${o.campaigns.length} campaign${o.campaigns.length === 1 ? '' : 's'} ·
  <a href="${href('/settings/keys')}">${o.activeKeys} active API key${o.activeKeys === 1 ? '' : 's'}</a></p>
${dialerStatus(o.dialers, o.now)}
<h2>Leads by status</h2>
<div class="stats">
  ${stat(o.totals.total, 'all leads')}
  ${LEAD_STATUSES.map((s) => stat(o.totals[s], s))}
</div>
${activitySection(o.activity)}
<h2>Campaigns</h2>
<table>
<thead><tr><th>Campaign</th>${LEAD_STATUSES.map((s) => html`<th class="num">${s}</th>`)}<th class="num">total</th><th class="num">calls today</th></tr></thead>
<tbody>${
      o.campaigns.length
        ? o.campaigns.map(
            ({ campaign: c, counts }) => html`<tr><td><a href="${href(`/campaigns/${seg(c.id)}/leads`)}">${c.name}</a></td>
  ${LEAD_STATUSES.map((s) => html`<td class="num">${count(counts[s])}</td>`)}<td class="num">${count(counts.total)}</td>
  <td class="num">${count(o.activity.byCampaign.get(c.id)?.calls ?? 0)}</td></tr>`,
          )
        : html`<tr><td colspan="7" class="empty">No campaigns yet: <a href="${href('/campaigns/new')}">create one</a>.</td></tr>`
    }</tbody>
</table>`,
  );
}

/** is anything calling? From the dialers' heartbeats (every 5 s; silent for 15 s counts as stopped) */
function dialerStatus(d: DialersRunning, now: number) {
  if (d.workers === 0) {
    return notice(
      'warn',
      html`<strong>No dialer is running</strong> for these campaigns: leads are not being called. Start one with <code>leadline dialer</code>.`,
    );
  }
  const ago = Math.max(0, Math.round((now - (d.lastBeatAt ?? now)) / 1000));
  return notice(
    'ok',
    html`<strong>Dialer running</strong>: ${d.workers} worker${d.workers === 1 ? '' : 's'}, last heartbeat ${ago} s ago.`,
  );
}
