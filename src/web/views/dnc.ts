/** Company settings → Do-not-call list: search a number, add, remove, and the list a page at a time. */
import type { DncFieldError } from '../dnc.js';
import { type Html, html, href } from '../html.js';
import { settingsTabs } from './keys.js';
import { badge, confirmPage, count, csrfField, fieldState, notice, page, type Viewer, when } from './layout.js';

interface Entry {
  phoneNumber: string;
  addedAt: string;
  source: string;
  reason?: string;
}

export interface DncView {
  total: number;
  entries: readonly Entry[];
  /** the cursor this page started from, if not the first */
  cursor?: string;
  /** the next page's cursor, when there is one */
  next?: string;
  /** the number searched for and what the list holds for it */
  search?: { phoneNumber: string; listed: boolean; addedAt?: string; source?: string; reason?: string };
  /** what the form that failed held, and each field's problem */
  values?: Record<string, string | undefined>;
  errors?: readonly DncFieldError[];
  /** the flash after a redirect */
  done?: { added?: string; already?: string; removed?: string; notListed?: string };
}

const plural = (n: number, one: string, many: string) => `${count(n)} ${n === 1 ? one : many}`;

function doneMessage(d: DncView['done']): string | null {
  if (d?.added !== undefined) {
    const added = Number(d.added) || 0;
    const already = Number(d.already) || 0;
    return `${plural(added, 'number was', 'numbers were')} added to the list${already ? `; ${plural(already, 'was', 'were')} already listed and kept ${already === 1 ? 'its' : 'their'} first entry` : ''}.`;
  }
  if (d?.removed !== undefined) {
    const removed = Number(d.removed) || 0;
    const notListed = Number(d.notListed) || 0;
    return `${plural(removed, 'number was', 'numbers were')} taken off the list${notListed ? `; ${plural(notListed, 'was', 'were')} not listed` : ''}. Their leads can be called again.`;
  }
  return null;
}

function searchResult(s: NonNullable<DncView['search']>): Html {
  if (!s.listed)
    return notice('ok', html`<span class="mono">${s.phoneNumber}</span> is <strong>not listed</strong>: the dialer may call it.`);
  return html`<div class="card" id="result"><h2><span class="mono">${s.phoneNumber}</span> ${badge('listed')}</h2>
<dl class="props"><dt>Added</dt><dd>${when(Date.parse(s.addedAt!))}</dd><dt>Source</dt><dd>${s.source}</dd>
<dt>Reason</dt><dd>${s.reason ?? html`<span class="muted">none given</span>`}</dd></dl>
<p class="actions"><a class="button secondary small" href="${href('/settings/dnc/remove', { phoneNumber: s.phoneNumber })}">Remove…</a></p></div>`;
}

function table(o: DncView): Html {
  const rows = o.entries.map(
    (e) => html`<tr>
  <td class="mono">${e.phoneNumber}</td>
  <td>${when(Date.parse(e.addedAt))}</td>
  <td>${e.source}</td>
  <td>${e.reason ?? ''}</td>
  <td><a class="button secondary small" href="${href('/settings/dnc/remove', { phoneNumber: e.phoneNumber })}">Remove…</a></td>
</tr>`,
  );
  return html`<table>
<thead><tr><th>Number</th><th>Added</th><th>Source</th><th>Reason</th><th><span class="muted">Action</span></th></tr></thead>
<tbody>${rows.length ? rows : html`<tr><td colspan="5" class="empty">${o.cursor ? 'No more numbers.' : 'No numbers are listed.'}</td></tr>`}</tbody>
</table>
<nav class="pager" aria-label="Pages">
  ${o.cursor ? html`<a class="button secondary" href="${href('/settings/dnc')}">First page</a>` : ''}
  ${o.next ? html`<a class="button secondary" rel="next" href="${href('/settings/dnc', { cursor: o.next })}">Next page</a>` : ''}
  <span class="muted">${o.entries.length} shown, in number order</span>
</nav>`;
}

export function dncPage(v: Viewer, o: DncView): string {
  const errors = o.errors ?? [];
  const values = o.values ?? {};
  const adding = values.form !== 'remove';
  const search = fieldState('phoneNumber', errors);
  const numbers = fieldState('numbers', errors);
  const reason = fieldState('reason', errors);
  return page(
    { title: 'Do-not-call list', section: 'settings', viewer: v },
    html`<h1>Company settings</h1>
<p class="sub">${v.companyName}</p>
${settingsTabs('dnc')}
${notice('ok', doneMessage(o.done))}
<p>The dialer never calls a listed number, in any campaign of ${v.companyName}. ${plural(o.total, 'number is', 'numbers are')} listed.</p>
<form method="get" action="${href('/settings/dnc')}" class="toolbar" role="search">
  <div class="field"><label for="f-phoneNumber">Look up a number</label>
    <input id="f-phoneNumber" name="phoneNumber" type="search" value="${values.phoneNumber ?? o.search?.phoneNumber ?? ''}" placeholder="+14155550123"${search.attrs}>
    ${search.message}</div>
  <button type="submit">Look up</button>
</form>
${o.search ? searchResult(o.search) : ''}
${table(o)}
<div class="card" id="add">
<h2>Add numbers</h2>
<form method="post" action="${href('/settings/dnc')}">
  ${csrfField(v.csrfToken)}
  <div class="field"><label for="f-numbers">Numbers</label>
    <textarea id="f-numbers" name="numbers" rows="5" required${numbers.attrs}>${adding ? (values.numbers ?? '') : ''}</textarea>
    ${adding ? numbers.message : ''}
    <div class="hint">E.164, one a line or separated by commas, up to 1000 at a time. A number already listed keeps its first entry.</div></div>
  <div class="field"><label for="f-reason">Reason <span class="muted">(optional)</span></label>
    <input id="f-reason" name="reason" type="text" maxlength="500" value="${values.reason ?? ''}"${reason.attrs}>
    ${reason.message}
    <div class="hint">Kept with each number newly listed; the source is recorded as <code>dashboard</code>.</div></div>
  <button type="submit">Add to the list</button>
</form>
</div>
<div class="card" id="remove">
<h2>Remove numbers</h2>
<form method="post" action="${href('/settings/dnc/remove')}">
  ${csrfField(v.csrfToken)}
  <div class="field"><label for="f-remove">Numbers</label>
    <textarea id="f-remove" name="numbers" rows="3" required${adding ? '' : numbers.attrs}>${adding ? '' : (values.numbers ?? '')}</textarea>
    ${adding ? '' : numbers.message}
    <div class="hint">You are asked to confirm before anything is removed.</div></div>
  <button type="submit" class="secondary">Remove…</button>
</form>
</div>`,
  );
}

/** the numbers to remove, asked about first: their leads become callable again */
export function removeDncPage(v: Viewer, numbers: readonly string[]): string {
  return confirmPage(v, {
    title: 'Remove from the do-not-call list',
    section: 'settings',
    question: html`<p>Take ${numbers.length === 1 ? html`<strong class="mono">${numbers[0]}</strong>` : html`these ${numbers.length} numbers`} off the list?</p>
${numbers.length > 1 ? html`<p class="mono">${numbers.slice(0, 20).join(', ')}${numbers.length > 20 ? ` … and ${numbers.length - 20} more` : ''}</p>` : ''}
<p>${numbers.length === 1 ? 'The dialer may call it again from now on, in every campaign. Its entry (date, source, reason) is not kept.' : 'The dialer may call them again from now on, in every campaign. Their entries (date, source, reason) are not kept.'}</p>`,
    action: href('/settings/dnc/remove'),
    button: 'Remove',
    cancel: href('/settings/dnc'),
    fields: { numbers: numbers.join(','), confirmed: 'yes' },
  });
}
