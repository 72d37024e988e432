/**
 * CSV formula injection: a spreadsheet runs a cell that starts with = + - @
 * as a formula, so a lead's data could run commands on whoever opens an
 * export. OWASP's CSV Injection page lists those four, tab, carriage return
 * and line feed as the characters no cell may begin with, and its fix is a
 * leading apostrophe.
 *
 * Spreadsheets also skip what looks like nothing before a formula, so the
 * check is on the first character after any leading run of whitespace,
 * invisible and control characters (space, no-break space, zero-width space,
 * BOM, bidi marks, …), and it reads that character in its compatibility form
 * (NFKC), so fullwidth ＝＋－＠ and their small and super/subscript forms
 * count as = + - @. Tab, carriage return and line feed at the very start are
 * guarded whatever follows.
 *
 * A plain number such as an E.164 phone number (+14155550123) cannot be a
 * formula and is left alone, so exports stay readable and re-importable.
 */
const CONTROL_START = /^[\t\r\n]/;
/** whitespace (\s covers no-break and the other Unicode spaces), format characters (zero-width, bidi, BOM, soft hyphen) and controls */
const INVISIBLE_RUN = /^[\s\p{Cf}\p{Cc}\p{Z}]*/u;
const TRIGGERS = new Set(['=', '+', '-', '@']);
const PLAIN_NUMBER = /^[+-]?[0-9]+(\.[0-9]+)?$/;

function runsAsFormula(value: string): boolean {
  if (CONTROL_START.test(value)) return true;
  const rest = value.slice(INVISIBLE_RUN.exec(value)![0].length);
  const first = rest.codePointAt(0);
  if (first === undefined) return false;
  return TRIGGERS.has(String.fromCodePoint(first).normalize('NFKC')[0]!) && !PLAIN_NUMBER.test(value);
}

/**
 * The cell as exported. A value that already starts with apostrophes before
 * a formula (`'=x`) gets one more, so that import, which removes one, gives it
 * back unchanged.
 */
export function guardCell(value: string): string {
  return runsAsFormula(value.replace(/^'+/, '')) ? `'${value}` : value;
}

/**
 * For every CSV leadline writes: a value that begins or ends with whitespace
 * is quoted, because import trims unquoted cells (so `a, b` files read as
 * meant) and leaves quoted ones as they are. \s covers every character
 * csv-parse trims. Without it an externalId " crm 1 " would come back "crm 1".
 */
export const CSV_QUOTING = { quoted_match: /^\s|\s$/u } as const;

/** the inverse, applied on import, so an exported file loads back as it was */
export function unguardCell(value: string): string {
  return value.startsWith("'") && guardCell(value.slice(1)) === value ? value.slice(1) : value;
}
