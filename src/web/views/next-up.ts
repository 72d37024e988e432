/** A campaign's Next up: the leads its dialer takes next, in order, and why each held back is. */
import type { CampaignTable } from '../../db/schema.js';
import type { NextUpLead } from '../../dialer/next-up.js';
import { type Html, html, href, seg } from '../html.js';
import { notice, page, type Viewer, when } from './layout.js';

export interface NextUpView {
  campaign: CampaignTable;
  leads: readonly NextUpLead[];
  /** the instant the page was worked out for */
  now: number;
  /** how many it shows at most */
  limit: number;
}

/** the reasons as `leadline lead explain` words them, each with what it says besides */
function heldBack(x: NextUpLead): Html {
  const e = x.explanation;
  return html`<ul class="reasons">${e.reasons.map((r) => html`<li>${r}${e.details[r] ? html` <span class="muted">(${e.details[r]})</span>` : ''}</li>`)}</ul>`;
}

function row(c: CampaignTable, x: NextUpLead): Html {
  const l = x.lead;
  const e = x.explanation;
  return html`<tr>
  <td class="num">${x.turn ?? '—'}</td>
  <td><a href="${href(`/campaigns/${seg(c.id)}/leads/${seg(l.id)}`)}" class="mono">${l.phone_number ?? '(from predial)'}</a></td>
  <td class="mono">${l.external_id ?? ''}</td>
  <td class="num">${l.priority}</td>
  <td>${x.turn !== null ? html`<strong>called now</strong>` : html`held back${heldBack(x)}`}</td>
  <td>${e.due ? 'now' : e.nextDueAt ? when(e.nextDueAt.getTime()) : html`<span class="muted">not while this holds</span>`}</td>
</tr>`;
}

export function nextUpPage(v: Viewer, o: NextUpView): string {
  const c = o.campaign;
  const called = o.leads.filter((x) => x.turn !== null).length;
  return page(
    { title: `${c.name}: next up`, section: 'campaigns', viewer: v },
    html`<h1>${c.name}: next up</h1>
<p class="sub"><a href="${href(`/campaigns/${seg(c.id)}/leads`)}">Leads</a> · <a href="${href(`/campaigns/${seg(c.id)}`)}">Settings</a> · as of ${when(o.now, { seconds: true })}</p>
<p>The first ${o.limit} leads the dialer takes, in the order it takes them: by priority (highest first), then due time, then
  creation; then, to fill the list, the leads due later, soonest first. A lead held back is shown in its place with the reasons,
  in the words of <code>leadline lead explain</code>, and the dialer passes over it. Reading this page changes nothing.</p>
${notice(called === 0 && o.leads.length > 0 ? 'warn' : 'ok', o.leads.length === 0 ? null : called === 0 ? 'None of these would be called now.' : `${called} of these would be called now, in the order numbered.`)}
<table>
<thead><tr><th class="num">Turn</th><th>Phone number</th><th>External id</th><th class="num">Priority</th><th>Now</th><th>Due</th></tr></thead>
<tbody>${o.leads.length ? o.leads.map((x) => row(c, x)) : html`<tr><td colspan="6" class="empty">No lead is waiting to be called: every lead is concluded or exhausted, or there are none.</td></tr>`}</tbody>
</table>`,
  );
}
