/**
 * The one place HTML is escaped. Every value interpolated into `html`…`` is
 * escaped unless it is already an Html fragment, so a view cannot forget.
 */
export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

export type Part = Html | string | number | boolean | null | undefined | readonly Part[];

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ENTITIES[c]!);

function render(part: Part): string {
  if (part === null || part === undefined || part === false || part === true) return '';
  if (part instanceof Html) return part.value;
  if (Array.isArray(part)) return part.map(render).join('');
  return escapeHtml(String(part));
}

export function html(strings: TemplateStringsArray, ...values: Part[]): Html {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i] as Part) + strings[i + 1]!;
  return new Html(out);
}

/**
 * A dashboard path from literal segments and values; values are
 * percent-encoded, so an id can never leave its path segment.
 */
export function href(path: string, query: Record<string, string | undefined> = {}): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== '') q.set(k, v);
  const qs = q.toString();
  return `/dashboard${path}${qs ? `?${qs}` : ''}`;
}

export const seg = (value: string): string => encodeURIComponent(value);
