/** The metadata size check answers exactly; the text it serialised is the one stored, and it leaves no trace on the object. */
import { describe, expect, it, vi } from 'vitest';
import { isZonedDateTime, jsonText, maxJsonBytesKeyword, toUtcIso } from '../../src/leads/formats.js';

describe('maxJsonBytes and jsonText', () => {
  it('stores the text the size check serialised, and the object still serialises and lists as it came', () => {
    // long enough that the check's upper bound is over the limit, so it serialises
    const metadata = { name: 'Ada', tags: ['a', 'b'], nested: { n: 1 }, notes: 'x'.repeat(3000) };
    const stringify = vi.spyOn(JSON, 'stringify');
    try {
      expect(maxJsonBytesKeyword.validate(16 * 1024, metadata)).toBe(true);
      expect(stringify).toHaveBeenCalledTimes(1);
      const text = jsonText(metadata);
      expect(text).toBe(`{"name":"Ada","tags":["a","b"],"nested":{"n":1},"notes":"${'x'.repeat(3000)}"}`);
      expect(jsonText(metadata)).toBe(text);
      expect(stringify).toHaveBeenCalledTimes(1); // the stored text, not serialised again
    } finally {
      stringify.mockRestore();
    }
    expect(Object.keys(metadata)).toEqual(['name', 'tags', 'nested', 'notes']);
    expect(JSON.stringify(metadata)).toBe(jsonText(metadata));
  });

  it('does not serialise metadata whose bound is under the limit (a retry stores none of it)', () => {
    const stringify = vi.spyOn(JSON, 'stringify');
    try {
      expect(maxJsonBytesKeyword.validate(16 * 1024, { name: 'Ada', company: 'Acme Corp', tags: ['a', 1, null] })).toBe(true);
      expect(stringify).not.toHaveBeenCalled();
    } finally {
      stringify.mockRestore();
    }
  });

  it('refuses metadata over the limit in bytes, not characters', () => {
    expect(maxJsonBytesKeyword.validate(12, { s: 'éé' })).toBe(true); // {"s":"éé"} is 12 bytes
    expect(maxJsonBytesKeyword.validate(11, { s: 'éé' })).toBe(false);
  });

  it('answers exactly as serialising and counting bytes, at and around every size (the bound is only a shortcut)', () => {
    // strings whose characters serialise to 1, 2, 3, 4 (a pair) and 6 bytes (an escaped control
    // character), numbers at their longest, and nesting, so that the bound is tight somewhere
    const mixed = { chars: ['a', 'é', '€', '😀', '\u0001', '"', '\\'], scalars: [0, -1.2345678901234567e-308, 1e21, true, null] };
    // only what the bound counts at its most: a value of these is at most a byte per container over
    const tightest = { chars: ['\u0001'], scalars: [-1.2345678901234567e-308] };
    let { chars, scalars } = mixed;
    let seed = 7;
    const next = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    // one character repeated (the bound is tightest for a string of escapes) or a mix
    const text = () => {
      const one = chars[next(chars.length)]!;
      return Array.from({ length: next(40) }, () => (next(2) === 0 ? one : chars[next(chars.length)])).join('');
    };
    const value = (depth: number): unknown => {
      const pick = next(depth > 3 ? 3 : 5);
      if (pick === 0) return scalars[next(scalars.length)];
      if (pick === 1 || pick === 2) return text();
      if (pick === 3) return Array.from({ length: next(5) }, () => value(depth + 1));
      return Object.fromEntries(Array.from({ length: next(5) }, () => [text(), value(depth + 1)]));
    };
    let checked = 0;
    for (let i = 0; i < 4000; i++) {
      ({ chars, scalars } = i < 2000 ? mixed : tightest);
      const v = next(2) === 0 ? { [text()]: value(1) } : { [text()]: value(0), [text()]: value(1) };
      const bytes = Buffer.byteLength(JSON.stringify(v));
      for (const max of [0, 1, bytes - 1, bytes, bytes + 1, bytes * 2, bytes * 6, bytes * 6 + 50]) {
        expect(maxJsonBytesKeyword.validate(max, JSON.parse(JSON.stringify(v))), `${JSON.stringify(v)} at ${max}`).toBe(bytes <= max);
        checked++;
      }
    }
    expect(checked).toBe(32000);
  });

  it('refuses a number JSON cannot carry (1e400 parses to Infinity, which would be stored as null), wherever it sits', () => {
    expect(maxJsonBytesKeyword.validate(16 * 1024, JSON.parse('{"big":1e400}'))).toBe(false);
    expect(maxJsonBytesKeyword.validate(16 * 1024, JSON.parse('{"a":[1,{"b":-1e400}]}'))).toBe(false);
    // past the walk's bound (a long string first), so the exact check must look for it too
    expect(maxJsonBytesKeyword.validate(16 * 1024, { s: 'x'.repeat(3000), big: Number.POSITIVE_INFINITY })).toBe(false);
    expect(maxJsonBytesKeyword.validate(16 * 1024, { s: 'x'.repeat(3000), n: 1.7976931348623157e308 })).toBe(true);
  });

  it('serialises an object the check never saw', () => {
    expect(jsonText({ a: 1 })).toBe('{"a":1}');
  });
});

/** the check and conversion as they were, through Date.parse (and Date.UTC, which reads years 0-99 as 19xx) */
const ZONED = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-](\d{2}):(\d{2}))$/i;
function byDateParse(value: string): string | null {
  const m = ZONED.exec(value);
  if (!m) return null;
  const [, y, mo, d, h, mi, s, zh, zm] = m;
  const month = Number(mo);
  const day = Number(d);
  if (month < 1 || month > 12 || day < 1) return null;
  if (day > new Date(Date.UTC(Number(y), month, 0)).getUTCDate()) return null;
  if (Number(h) > 23 || Number(mi) > 59 || Number(s ?? 0) > 59) return null;
  if (zh !== undefined && (Number(zh) > 23 || Number(zm) > 59)) return null;
  const time = Date.parse(value);
  if (Number.isNaN(time)) return null;
  const out = new Date(time).getUTCFullYear();
  return out >= 0 && out <= 9999 ? new Date(time).toISOString() : null;
}

describe('zoned timestamps', () => {
  it('accepts and converts exactly what Date.parse did, over 30,000 timestamps near every edge', () => {
    let seed = 7;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const pick = <T>(xs: readonly T[]) => xs[rand(xs.length)]!;
    const pad = (n: number, w: number) => String(n).padStart(w, '0');
    const years = [0, 1, 4, 99, 100, 1900, 1970, 2000, 2024, 2030, 2100, 9999];
    let accepted = 0;
    for (let i = 0; i < 30_000; i++) {
      const year = rand(3) === 0 ? rand(10_000) : pick(years);
      const seconds = pick(['', `:${pad(rand(61), 2)}`, `:${pad(rand(60), 2)}.${String(rand(1e9)).slice(0, 1 + rand(9))}`]);
      const zone = pick(['Z', 'z', `+${pad(rand(25), 2)}:${pad(rand(61), 2)}`, `-${pad(rand(25), 2)}:${pad(rand(61), 2)}`, '']);
      const value = `${pad(year, 4)}-${pad(rand(14), 2)}-${pad(rand(33), 2)}${pick(['T', 't'])}${pad(rand(25), 2)}:${pad(rand(61), 2)}${seconds}${zone}`;
      const want = byDateParse(value);
      // 0000-02-29 exists (0000 is a leap year); the old check asked Date.UTC about 1900
      if (want === null && /^0000-02-29/.test(value)) continue;
      expect(isZonedDateTime(value), value).toBe(want !== null);
      if (want !== null) {
        expect(toUtcIso(value), value).toBe(want);
        accepted++;
      }
    }
    expect(accepted).toBeGreaterThan(3000);
  });

  it('refuses what the shape refuses: 20,000 timestamps with a character dropped, added or changed', () => {
    let seed = 11;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const bases = [
      '2030-01-02T03:04:05Z',
      '2030-01-02T03:04:05.123456789Z',
      '2030-01-02t03:04:05.123456789+01:30',
      '1999-12-31T23:59-05:00',
      '2024-02-29T00:00:00.5z',
    ];
    // ASCII look-alikes and the digits \d does not take (Arabic-Indic, full-width)
    const units = [...'0123456789TtZz:-+.', ' ', '\n', 'x', '\u0663', '\uff10'];
    let refused = 0;
    for (let i = 0; i < 20_000; i++) {
      let value = bases[rand(bases.length)]!;
      for (let k = 1 + rand(2); k > 0; k--) {
        const at = rand(value.length + 1);
        const how = rand(3);
        const unit = units[rand(units.length)]!;
        value = value.slice(0, at) + (how === 0 ? '' : unit) + value.slice(how === 1 ? at : at + 1);
      }
      const want = byDateParse(value);
      if (want === null && /^0000-02-29/.test(value)) continue;
      expect(isZonedDateTime(value), JSON.stringify(value)).toBe(want !== null);
      if (want === null) refused++;
      else expect(toUtcIso(value), value).toBe(want);
    }
    expect(refused).toBeGreaterThan(5000);
  });

  it('refuses a zoneless time, a 30 February, and an instant outside the years 0000-9999', () => {
    expect(isZonedDateTime('2030-01-02T03:04:05')).toBe(false);
    expect(isZonedDateTime('2030-02-30T03:04:05Z')).toBe(false);
    expect(isZonedDateTime('2024-02-29T03:04:05Z')).toBe(true);
    expect(isZonedDateTime('2100-02-29T03:04:05Z')).toBe(false);
    expect(isZonedDateTime('0000-01-01T00:30:00+01:00')).toBe(false);
    expect(isZonedDateTime('9999-12-31T23:30:00-01:00')).toBe(false);
    expect(toUtcIso('0050-06-01T00:00:00.1239+02:30')).toBe('0050-05-31T21:30:00.123Z');
    expect(toUtcIso('0000-02-29T12:00:00Z')).toBe('0000-02-29T12:00:00.000Z');
  });
});
