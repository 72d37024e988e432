import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatDuration, parseDuration } from '../../src/scheduling/duration.js';

const S = 1000,
  M = 60 * S,
  H = 60 * M,
  D = 24 * H;

describe('parseDuration', () => {
  it.each([
    ['0s', 0],
    ['90s', 90 * S],
    ['30m', 30 * M],
    ['2h', 2 * H],
    ['1d', D],
    ['1h30m', H + 30 * M],
    ['1d2h30m15s', D + 2 * H + 30 * M + 15 * S],
    ['36h', 36 * H],
    ['1h0m', H],
    ['0m', 0],
  ])('%s = %i ms', (s, ms) => expect(parseDuration(s)).toBe(ms));

  it.each([
    ['', /invalid duration ""/],
    ['90', /expected a whole number and unit/],
    ['1x', /unknown unit "x"/],
    ['30m1h', /out of order/],
    ['1h1h', /repeated or out of order/],
    ['1h90m', /90m must be below 60m/],
    ['1d24h', /24h must be below 24h/],
    ['1H', /invalid duration "1H"/],
    ['1h 30m', /invalid duration/],
    [' 1h', /invalid duration/],
    ['-1s', /invalid duration/],
    ['1.5h', /invalid duration/],
    ['1h30', /invalid duration/],
    ['h', /invalid duration/],
    ['99999999999999999999d', /too large/],
  ])('refuses %j', (s, msg) => expect(() => parseDuration(s)).toThrow(msg));
});

describe('formatDuration', () => {
  it.each([
    [0, '0s'],
    [90 * S, '1m30s'],
    [30 * M, '30m'],
    [2 * H, '2h'],
    [D, '1d'],
    [H + 30 * M, '1h30m'],
    [H + S, '1h1s'],
    [36 * H, '1d12h'],
    [100 * D, '100d'],
    [D + 2 * H + 30 * M + 15 * S, '1d2h30m15s'],
  ])('%i ms -> %s', (ms, s) => expect(formatDuration(ms)).toBe(s));

  it('refuses values it cannot spell', () => {
    expect(() => formatDuration(-1000)).toThrow(RangeError);
    expect(() => formatDuration(1500)).toThrow(RangeError);
    expect(() => formatDuration(Number.NaN)).toThrow(RangeError);
  });
});

// Any spelling parseDuration accepts, built from a value and a leading unit.
const units = [
  ['d', D],
  ['h', H],
  ['m', M],
  ['s', S],
] as const;
const spelling = fc
  .record({ secs: fc.integer({ min: 1, max: 400 * 86400 }), lead: fc.integer({ min: 0, max: 3 }) })
  .filter(({ secs, lead }) => secs * S >= units[lead]![1])
  .map(({ secs, lead }) => {
    let rest = secs * S;
    let out = '';
    for (const [u, size] of units.slice(lead)) {
      const n = Math.floor(rest / size);
      rest -= n * size;
      if (n > 0 || out === '') out += `${n}${u}`;
    }
    return { ms: secs * S, s: out };
  });

describe('duration round trips', () => {
  it('parse(format(ms)) === ms', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10 ** 9 }), (secs) => {
        expect(parseDuration(formatDuration(secs * S))).toBe(secs * S);
      }),
    );
  });

  it('any accepted spelling parses to its value and formats canonically', () => {
    fc.assert(
      fc.property(spelling, ({ ms, s }) => {
        expect(parseDuration(s)).toBe(ms);
        const f = formatDuration(ms);
        expect(formatDuration(parseDuration(f))).toBe(f);
        // Canonical: every component below its natural bound, no zero parts.
        expect(f).toMatch(/^(?:[1-9]\d*d)?(?:(?:1?\d|2[0-3])h)?(?:[1-5]?\dm)?(?:[1-5]?\ds)?$/);
        expect(f).not.toMatch(/(?<!\d)0[dhms]/);
      }),
    );
  });
});
