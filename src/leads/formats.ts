/** Ajv formats and keywords the lead schemas use. */
const ZONED = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-](\d{2}):(\d{2}))$/i;

/**
 * An ISO 8601 timestamp WITH a zone. A zoneless one is refused: guessing UTC
 * could ring someone at 3 a.m. Calendar validity is checked too (no Feb 30).
 */
export function isZonedDateTime(value: string): boolean {
  const m = ZONED.exec(value);
  if (!m) return false;
  const [, y, mo, d, h, mi, s, zh, zm] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  if (month < 1 || month > 12 || day < 1) return false;
  if (day > new Date(Date.UTC(year, month, 0)).getUTCDate()) return false;
  if (Number(h) > 23 || Number(mi) > 59 || Number(s ?? 0) > 59) return false;
  if (zh !== undefined && (Number(zh) > 23 || Number(zm) > 59)) return false;
  const time = Date.parse(value);
  if (Number.isNaN(time)) return false;
  // toISOString() output must stay within years 0000-9999 so text order is time order
  const out = new Date(time).getUTCFullYear();
  return out >= 0 && out <= 9999;
}

export const toUtcIso = (value: string): string => new Date(Date.parse(value)).toISOString();

/**
 * The text maxJsonBytes serialised, kept on the object itself under a symbol
 * (JSON.stringify and Object.keys skip symbol keys), so that storing a lead's
 * metadata does not serialise it a second time: 0.3-0.5 ms of a 1000-lead bulk
 * create. A WeakMap from object to text was measured slower than serialising
 * twice (its entries cost the garbage collector more). Read by jsonText only,
 * on a request body's object that nothing changed after validation; a spread
 * copy would carry the symbol along, so never call jsonText on one.
 */
const TEXT = Symbol('serialised by maxJsonBytes');
type WithText = { [TEXT]?: string };

/** the object as stored JSON text */
export const jsonText = (value: object): string => (value as WithText)[TEXT] ?? JSON.stringify(value);

/** Ajv keyword: the value serialised as JSON is at most N bytes. */
export const maxJsonBytesKeyword = {
  keyword: 'maxJsonBytes',
  type: 'object',
  schemaType: 'number',
  validate: (max: number, data: object) => {
    try {
      const text = JSON.stringify(data);
      (data as WithText)[TEXT] = text;
      return Buffer.byteLength(text) <= max;
    } catch {
      // Nesting deep enough to overflow the stack (thousands of levels, tens of KiB)
      // is far over any byte limit; without this it was a 500.
      return false;
    }
  },
  errors: false,
} as const;

export const ajvFormats = { 'zoned-date-time': isZonedDateTime };
