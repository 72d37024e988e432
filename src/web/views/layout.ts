/** The page shell every dashboard page shares, and small pieces views reuse. */
import { CSS, JS } from '../assets/index.js';
import { type Html, html, href } from '../html.js';

export type Section = 'overview' | 'campaigns' | 'settings' | 'account';

export interface Viewer {
  email: string;
  companyName: string;
  csrfToken: string;
}

export interface PageOptions {
  title: string;
  section?: Section;
  /** null on pages shown before sign-in */
  viewer: Viewer | null;
  /**
   * Seconds between refreshes of the page's content: the script swaps in the
   * new <main> without a reload; without JavaScript a <noscript> meta refresh
   * reloads the page instead.
   */
  refresh?: number;
}

const NAV: [Section, string, string][] = [
  ['overview', 'Overview', '/'],
  ['campaigns', 'Campaigns', '/campaigns'],
  ['settings', 'Company settings', '/settings/keys'],
];

const current = (on: boolean) => (on ? html` aria-current="page"` : '');

/**
 * Gives each body cell of every table its column's heading as data-label, so
 * that on a phone, where the stylesheet stacks a row's cells, each cell says
 * what it is (without JavaScript). One place for every table; the markup is
 * ours, already escaped, with no table inside a table.
 */
function labelCells(markup: string): string {
  return markup.replace(/<table\b[\s\S]*?<\/table>/g, (table) => {
    const head = /<thead>([\s\S]*?)<\/thead>/.exec(table);
    if (!head) return table;
    const labels = [...head[1]!.matchAll(/<th\b[^>]*>([\s\S]*?)<\/th>/g)].map((m) => m[1]!.replace(/<[^>]+>/g, '').trim());
    return table.replace(/<tr\b[^>]*>[\s\S]*?<\/tr>/g, (row) => {
      let i = 0;
      return row.replace(/<td\b(?![^>]*colspan)/g, () => `<td data-label="${labels[i++] ?? ''}"`);
    });
  });
}

export function page(o: PageOptions, body: Html): string {
  const v = o.viewer;
  return labelCells(
    html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>${o.title} · leadline</title>
<link rel="stylesheet" href="${href(`/assets/${CSS.name}`)}">
<script src="${href(`/assets/${JS.name}`)}" defer></script>
${o.refresh ? html`<noscript><meta http-equiv="refresh" content="${o.refresh}"></noscript>` : ''}
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
${
  v
    ? html`<header class="top">
  <a class="brand" href="${href('/')}">leadline<small>${v.companyName}</small></a>
  <nav class="main" aria-label="Main">
    ${NAV.map(([s, label, path]) => html`<a href="${href(path)}"${current(o.section === s)}>${label}</a>`)}
  </nav>
  <div class="who">
    <a href="${href('/password')}"${current(o.section === 'account')} title="Your password">${v.email}</a>
    <form method="post" action="${href('/logout')}">${csrfField(v.csrfToken)}<button type="submit">Sign out</button></form>
  </div>
</header>`
    : ''
}
<main id="main"${o.refresh ? html` data-refresh="${o.refresh}"` : ''}>
${body}
</main>
</body>
</html>`.value,
  );
}

export const csrfField = (token: string) => html`<input type="hidden" name="_csrf" value="${token}">`;

export function notice(kind: 'ok' | 'warn' | 'error', message: Html | string | null | undefined): Html {
  return message ? html`<div class="notice ${kind}" role="${kind === 'error' ? 'alert' : 'status'}">${message}</div>` : html``;
}

/**
 * A form field's own error, tied to its input (aria-invalid, aria-describedby
 * its message, with id e-<field>); the first invalid field of the form gets
 * the focus, with autofocus so without JavaScript too.
 */
export function fieldState<F extends string>(field: F, errors: readonly { field: F; message: string }[]): { attrs: Html; message: Html } {
  const error = errors.find((e) => e.field === field);
  if (!error) return { attrs: html``, message: html`` };
  const first = errors[0]!.field === field;
  return {
    attrs: html` aria-invalid="true" aria-describedby="e-${field}"${first ? html` autofocus` : ''}`,
    message: html`<div class="field-error" id="e-${field}">${error.message}</div>`,
  };
}

export const badge = (value: string) => html`<span class="badge ${value}">${value}</span>`;

/** times are shown in UTC, labelled, so two operators in different zones read the same thing */
export function when(ms: number | null | undefined, o: { seconds?: boolean } = {}): string {
  if (ms === null || ms === undefined) return '—';
  return `${new Date(ms)
    .toISOString()
    .slice(0, o.seconds ? 19 : 16)
    .replace('T', ' ')} UTC`;
}

export const count = (n: number) => n.toLocaleString('en-US');

/** a confirmation page: the only way to a destructive POST, so it works without JavaScript */
export function confirmPage(
  viewer: Viewer,
  o: {
    title: string;
    section: Section;
    question: Html;
    action: string;
    button: string;
    cancel: string;
    safe?: boolean;
    /** what the confirmed post carries besides the token (e.g. the numbers to remove) */
    fields?: Record<string, string>;
  },
): string {
  return page(
    { title: o.title, section: o.section, viewer },
    html`<h1>${o.title}</h1>
<div class="card">
  ${o.question}
  <form method="post" action="${o.action}" class="actions">
    ${csrfField(viewer.csrfToken)}
    ${Object.entries(o.fields ?? {}).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}
    <button type="submit"${o.safe ? '' : html` class="danger"`} autofocus>${o.button}</button>
    <a class="button secondary" href="${o.cancel}">Cancel</a>
  </form>
</div>`,
  );
}

export function errorPage(viewer: Viewer | null, status: number, message: string): string {
  const title = status === 404 ? 'Not found' : status === 403 ? 'Refused' : status === 429 ? 'Too many attempts' : 'Something went wrong';
  return page(
    { title, viewer },
    html`<h1>${title}</h1>
<div class="card"><p>${message}</p><p><a href="${href('/')}">Back to the overview</a></p></div>`,
  );
}
