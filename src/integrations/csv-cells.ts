/**
 * CSV formula injection: a spreadsheet runs a cell that starts with = + - @
 * (or a tab or carriage return, which some strip first) as a formula, so a
 * lead's metadata could run commands on whoever opens an export. Such cells
 * get a leading apostrophe (the OWASP advice). A plain number such as an
 * E.164 phone number (+14155550123) cannot be a formula and is left alone,
 * so exports stay readable and re-importable.
 */
const TRIGGER = /^[=+\-@\t\r]/;
const PLAIN_NUMBER = /^[+-]?[0-9]+(\.[0-9]+)?$/;

export function guardCell(value: string): string {
  return TRIGGER.test(value) && !PLAIN_NUMBER.test(value) ? `'${value}` : value;
}

/** the inverse, applied on import, so an exported file loads back as it was */
export function unguardCell(value: string): string {
  return value.startsWith("'") && TRIGGER.test(value.slice(1)) ? value.slice(1) : value;
}
