/** Ajv formats and keywords the lead schemas use. */
const MINUTE_MS = 60_000;

/**
 * The instant an ISO 8601 timestamp WITH a zone names, in ms since the epoch;
 * NaN for anything else. A zoneless one is refused: guessing UTC could ring
 * someone at 3 a.m. Calendar validity is checked too (no Feb 30), and the
 * instant must fall within the years 0000-9999 in UTC, so that
 * toISOString()'s text order is time order. Milliseconds are the first three
 * digits of the fraction, as Date.parse reads them.
 *
 * The shape it accepts is exactly
 * `^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$`, case
 * aside, read character by character: the regular expression's match and its
 * ten captured strings took half of the check's time (a 1000-lead retry with
 * 250 scheduled leads: 0.24 ms with the profiler on). The fields are worked
 * out with integer arithmetic rather than with Date.parse and Date's setters,
 * and written back by isoText.
 * test/leads/formats.test.ts holds this to Date.parse's answers and to that
 * expression's, on well-formed and broken timestamps.
 */
function zonedTime(value: string): number {
  const n = value.length;
  if (n < 17 || n > 35) return Number.NaN;
  const year = digits(value, 0, 4);
  const month = digits(value, 5, 2);
  const day = digits(value, 8, 2);
  const hour = digits(value, 11, 2);
  const minute = digits(value, 14, 2);
  if (
    (year | month | day | hour | minute) < 0 ||
    value.charCodeAt(4) !== DASH ||
    value.charCodeAt(7) !== DASH ||
    (value.charCodeAt(10) | LOWER) !== LOWER_T ||
    value.charCodeAt(13) !== COLON
  ) {
    return Number.NaN;
  }
  let at = 16;
  let second = 0;
  let ms = 0;
  if (value.charCodeAt(at) === COLON) {
    second = digits(value, at + 1, 2);
    if (second < 0) return Number.NaN;
    at += 3;
    if (value.charCodeAt(at) === DOT) {
      const from = ++at;
      while (at < n && at - from < 9 && digits(value, at, 1) >= 0) at++;
      if (at === from) return Number.NaN;
      // the first three digits of the fraction, as Date.parse reads them
      for (let i = from; i < from + 3; i++) ms = ms * 10 + (i < at ? digits(value, i, 1) : 0);
    }
  }
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return Number.NaN;
  let offset = 0;
  const sign = value.charCodeAt(at);
  if ((sign | LOWER) === LOWER_Z) {
    if (at + 1 !== n) return Number.NaN;
  } else if (sign === PLUS || sign === DASH) {
    const zh = digits(value, at + 1, 2);
    const zm = digits(value, at + 4, 2);
    if (at + 6 !== n || value.charCodeAt(at + 3) !== COLON || zh < 0 || zm < 0 || zh > 23 || zm > 59) return Number.NaN;
    offset = (sign === DASH ? -1 : 1) * (zh * 60 + zm) * MINUTE_MS;
  } else {
    return Number.NaN;
  }
  if (day > (month === 2 && isLeap(year) ? 29 : DAYS_IN_MONTH[month - 1]!)) return Number.NaN;
  const time = daysFromCivil(year, month, day) * DAY_MS + ((hour * 60 + minute) * 60 + second) * 1000 + ms - offset;
  return time >= FIRST_MS && time <= LAST_MS ? time : Number.NaN;
}

const DASH = 0x2d;
const PLUS = 0x2b;
const COLON = 0x3a;
const DOT = 0x2e;
/** a letter's bit that makes it lower case: `c | LOWER` folds T to t and Z to z */
const LOWER = 0x20;
const LOWER_T = 0x74;
const LOWER_Z = 0x7a;

/** the number the `count` ASCII digits at `at` write; -1 if any is not one (or is past the end) */
function digits(value: string, at: number, count: number): number {
  let n = 0;
  for (let i = at; i < at + count; i++) {
    const d = value.charCodeAt(i) - 0x30; // NaN past the end
    if (!(d >= 0 && d <= 9)) return -1;
    n = n * 10 + d;
  }
  return n;
}

const DAY_MS = 86_400_000;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
/** 0000-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z */
const FIRST_MS = -62_167_219_200_000;
const LAST_MS = 253_402_300_799_999;
const isLeap = (y: number) => y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);

/** days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil) */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  return era * 146_097 + yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy - 719_468;
}

export const isZonedDateTime = (value: string): boolean => !Number.isNaN(zonedTime(value));

/** the instant of a zoned timestamp (2026-01-31T12:00:00Z, +01:00…), NaN for anything else, 2026-02-30 included */
export const zonedInstant = (value: string): number => zonedTime(value);

/** the UTC text of a zoned timestamp isZonedDateTime accepted, as toISOString() writes it */
export const toUtcIso = (value: string): string => isoText(zonedTime(value));

const two = (n: number) => (n < 10 ? `0${n}` : `${n}`);

/**
 * toISOString() of an instant in the years 0000-9999, written here: V8's
 * took 0.85 µs, half of what a scheduled lead's timestamp cost
 */
function isoText(time: number): string {
  const days = Math.floor(time / DAY_MS);
  let rest = time - days * DAY_MS;
  const ms = rest % 1000;
  rest = (rest - ms) / 1000;
  const [year, month, day] = civilFromDays(days);
  const msText = ms < 10 ? `00${ms}` : ms < 100 ? `0${ms}` : `${ms}`;
  return `${String(year).padStart(4, '0')}-${two(month)}-${two(day)}T${two(Math.floor(rest / 3600))}:${two(Math.floor(rest / 60) % 60)}:${two(rest % 60)}.${msText}Z`;
}

/** the proleptic Gregorian date of a day since 1970-01-01 (H. Hinnant's civil_from_days) */
function civilFromDays(days: number): [number, number, number] {
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const month = mp < 10 ? mp + 3 : mp - 9;
  return [yoe + era * 400 + (month <= 2 ? 1 : 0), month, doy - Math.floor((153 * mp + 2) / 5) + 1];
}

/**
 * The text maxJsonBytes serialised, when it had to (see jsonBytesAtMost), kept
 * on the object itself under a symbol (JSON.stringify and Object.keys skip
 * symbol keys), so that storing a lead's large metadata does not serialise it
 * a second time. A WeakMap from object to text was measured slower than
 * serialising twice (its entries cost the garbage collector more). Read by
 * jsonText only, on a request body's object that nothing changed after
 * validation; a spread copy would carry the symbol along, so never call
 * jsonText on one.
 */
const TEXT = Symbol('serialised by maxJsonBytes');
type WithText = { [TEXT]?: string };

/** the object as stored JSON text */
export const jsonText = (value: object): string => (value as WithText)[TEXT] ?? JSON.stringify(value);

/** the most bytes JSON.stringify can write for a number, true, false or null (-1.2345678901234567e-308) */
const SCALAR_BYTES = 24;

/**
 * What budgetLeft answers for a number JSON cannot carry: JSON.parse reads
 * 1e400 as Infinity, which JSON.stringify writes as null, so the lead would
 * have been stored with `{"big":null}` where the client sent 1e400.
 */
const UNSTORABLE = Number.NEGATIVE_INFINITY;

/** whether a parsed JSON value holds a number JSON cannot carry (±Infinity) */
function hasUnstorableNumber(value: unknown): boolean {
  if (typeof value === 'number') return !Number.isFinite(value);
  if (typeof value !== 'object' || value === null) return false;
  for (const v of Array.isArray(value) ? value : Object.values(value)) if (hasUnstorableNumber(v)) return true;
  return false;
}

/**
 * What is left of `budget` bytes after the most JSON.stringify can write for
 * `value`, a parsed JSON value: each UTF-16 unit of a string (or key) at most
 * 6 bytes (`\u001f`), quotes, colons, commas and brackets counted. Negative
 * when the value may not fit; it stops there.
 */
function budgetLeft(value: unknown, budget: number): number {
  if (typeof value === 'string') return budget - 2 - 6 * value.length;
  if (typeof value === 'number') return Number.isFinite(value) ? budget - SCALAR_BYTES : UNSTORABLE;
  if (typeof value !== 'object' || value === null) return budget - SCALAR_BYTES;
  if (Array.isArray(value)) {
    let left = budget - 2 - value.length;
    for (let i = 0; i < value.length && left >= 0; i++) left = budgetLeft(value[i], left);
    return left;
  }
  let left = budget - 2;
  for (const key in value) {
    left = budgetLeft((value as Record<string, unknown>)[key], left - 4 - 6 * key.length);
    if (left < 0) break;
  }
  return left;
}

/**
 * Whether `value` serialised as JSON is at most `max` bytes. A walk that
 * bounds the size from above answers for the metadata people send (a few
 * hundred bytes) without serialising it: in a 1000-lead bulk, 0.05 ms against
 * 0.5 ms for JSON.stringify of every metadata, which a retry (whose leads are
 * all there, so none is stored) paid for nothing. Only when the bound is over
 * `max` is the value serialised and measured exactly, so the answer is the
 * same as serialising it always.
 */
function jsonBytesAtMost(value: object, max: number): boolean {
  const left = budgetLeft(value, max);
  if (left >= 0) return true;
  // The walk stops where the bound is first passed, so a number past it is looked for here.
  if (left === UNSTORABLE || hasUnstorableNumber(value)) return false;
  const text = JSON.stringify(value);
  (value as WithText)[TEXT] = text;
  return Buffer.byteLength(text) <= max;
}

/** Ajv keyword: the value serialised as JSON is at most N bytes, and holds no number too large to store. */
export const maxJsonBytesKeyword = {
  keyword: 'maxJsonBytes',
  type: 'object',
  schemaType: 'number',
  validate: (max: number, data: object) => {
    try {
      return jsonBytesAtMost(data, max);
    } catch {
      // Nesting deep enough to overflow the stack (thousands of levels, tens of KiB)
      // is far over any byte limit; without this it was a 500.
      return false;
    }
  },
  errors: false,
} as const;

export const ajvFormats = { 'zoned-date-time': isZonedDateTime };
