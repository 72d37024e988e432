/** The overview: is calling happening, at a glance. */
import type { Activity } from '../activity.js';
import type { CampaignSummary, Counts } from '../dashboard.js';
import { html, href, seg } from '../html.js';
import { activitySection } from './activity.js';
import { count, notice, page, type Viewer, when } from './layout.js';
import { LEAD_STATUSES } from '../../leads/lifecycle.js';

export function overviewPage(
  v: Viewer,
  o: {
    totals: Counts;
    campaigns: readonly CampaignSummary[];
    activeKeys: number;
    activity: Activity;
    dialers: { running: number; lastClaimAt: number | null };
    /** seconds between in-place refreshes */
    refresh?: number;
  },
): string {
  const stat = (n: number, label: string) => html`<div class="stat"><div class="n">${count(n)}</div><div class="l">${label}</div></div>`;
  return page(
    { title: 'Overview', section: 'overview', viewer: v, refresh: o.refresh },
    html`<h1>Overview</h1>
<p class="sub">${v.companyName} · ${o.campaigns.length} campaign${o.campaigns.length === 1 ? '' : 's'} ·
  <a href="${href('/settings/keys')}">${o.activeKeys} active API key${o.activeKeys === 1 ? '' : 's'}</a></p>
${calling(o.dialers, o.campaigns)}
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

/** whether any dialer serves these campaigns, and which campaigns are paused and why: without both, no lead is called */
function calling(d: { running: number; lastClaimAt: number | null }, campaigns: readonly CampaignSummary[]) {
  const paused = campaigns.filter((c) => c.campaign.paused_at !== null);
  const status =
    d.running > 0
      ? notice(
          'ok',
          html`Calling: ${d.running} dialer${d.running === 1 ? '' : 's'} running for these campaigns${d.lastClaimAt ? html`, last lead claimed ${when(d.lastClaimAt)}` : ', no lead claimed yet'}.`,
        )
      : notice('warn', html`No dialer is running: no lead is called until one is started (<code>leadline dialer</code>).`);
  const pauses = paused.map((c) =>
    notice(
      'warn',
      html`Campaign <a href="${href(`/campaigns/${seg(c.campaign.id)}/leads`)}">${c.campaign.name}</a> is paused: ${c.campaign.paused_reason ?? 'no reason given'}. Resume it with <code>leadline campaign resume ${c.campaign.id}</code>.`,
    ),
  );
  return html`<div id="calling">${status}${pauses}</div>`;
}
