import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DAYS,
  DEFAULT_LOCAL_WINDOW,
  formatHours,
  isOpen,
  nextOpen,
  parseHours,
  parseLocalWindow,
  validateTimeZone,
  type WeeklyHours,
} from '../../src/scheduling/hours.js';

const NY = 'America/New_York';
const at = (iso: string) => new Date(iso);
const iso = (d: Date | null) => d?.toISOString() ?? null;
const MONDAY_UTC = Date.UTC(2026, 2, 2); // 2026-03-02 is a Monday

describe('parseHours / formatHours', () => {
  it.each([
    ['mon-fri 09:00-17:00', 'mon-fri 09:00-17:00'],
    ['MON-FRI 09:00-17:00', 'mon-fri 09:00-17:00'],
    ['sat 10:00-14:00, mon-fri 09:00-17:00', 'mon-fri 09:00-17:00, sat 10:00-14:00'],
    ['mon + wed + fri 18:00-21:00', 'mon+wed+fri 18:00-21:00'],
    ['fri 20:00-02:00', 'fri 20:00-02:00'],
    ['sun 22:00-02:00', 'sun 22:00-02:00'],
    ['fri-mon 10:00-16:00', 'fri-mon 10:00-16:00'],
    ['sat+sun 10:00-16:00', 'sat-sun 10:00-16:00'],
    ['mon-sun 00:00-24:00', 'mon-sun 00:00-24:00'],
    ['mon-sun 00:00-12:00, mon-sun 12:00-24:00', 'mon-sun 00:00-24:00'],
    ['mon-fri 00:00-24:00', 'mon-fri 00:00-24:00'],
    ['mon 09:00-12:00, mon 11:00-13:00', 'mon 09:00-13:00'],
    ['mon 20:00-24:00, tue 00:00-24:00', 'mon 20:00-24:00, tue 00:00-24:00'],
    ['mon 22:00-00:00', 'mon 22:00-24:00'],
    ['never', 'never'],
  ])('%j formats as %j', (spec, canonical) => {
    expect(formatHours(parseHours(spec))).toBe(canonical);
  });

  it('crossing midnight means Friday 20:00 to Saturday 02:00', () => {
    expect(parseHours('fri 20:00-02:00').intervals).toEqual([[4 * 1440 + 1200, 5 * 1440 + 120]]);
    // Sunday night wraps into Monday morning of the same week pattern.
    expect(parseHours('sun 22:00-02:00').intervals).toEqual([
      [0, 120],
      [6 * 1440 + 1320, 7 * 1440],
    ]);
  });

  it.each([
    ['', /invalid hours "": empty/],
    ['mon-fri', /rule "mon-fri" should look like/],
    ['mon-fri 9:00-17:00', /bad time "9:00"/],
    ['mon-fri 09:00-25:00', /bad time "25:00"/],
    ['mon-fri 09:60-17:00', /bad time "09:60"/],
    ['mon 24:00-02:00', /24:00 can only end a range/],
    ['mon 09:00-09:00', /empty range 09:00-09:00/],
    ['mon-mon 09:00-17:00', /names one day/],
    ['mnd 09:00-17:00', /unknown day "mnd"/],
    ['mon-tue-wed 09:00-17:00', /bad days/],
    ['mon-fri 09:00-17:00,', /rule "" should look like/],
    ['mon-fri 09:00-17:00 x', /should look like/],
  ])('refuses %j', (spec, msg) => {
    expect(() => parseHours(spec)).toThrow(msg);
    expect(() => parseHours(spec)).toThrow(`invalid hours "${spec}"`);
  });

  const time = fc.integer({ min: 0, max: 1439 });
  const hhmm = (m: number) => `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;
  const dayItem = fc.oneof(
    fc.integer({ min: 0, max: 6 }).map((d) => ({ text: DAYS[d]!, days: [d] })),
    fc.tuple(fc.integer({ min: 0, max: 6 }), fc.integer({ min: 1, max: 6 })).map(([a, len]) => ({
      text: `${DAYS[a]}-${DAYS[(a + len) % 7]}`,
      days: Array.from({ length: len + 1 }, (_, i) => (a + i) % 7),
    })),
  );
  const rule = fc
    .record({ items: fc.array(dayItem, { minLength: 1, maxLength: 3 }), start: time, end: fc.integer({ min: 0, max: 1440 }) })
    .filter((r) => r.end !== r.start && !(r.start === 0 && r.end === 0))
    .map((r) => ({ ...r, text: `${r.items.map((i) => i.text).join('+')} ${hhmm(r.start)}-${hhmm(r.end)}` }));
  const spec = fc.array(rule, { minLength: 1, maxLength: 4 });

  // Reference semantics, straight from the grammar's prose.
  function modelOpen(rules: { items: { days: number[] }[]; start: number; end: number }[], m: number): boolean {
    return rules.some((r) =>
      r.items.some((i) =>
        i.days.some((d) => {
          const s = d * 1440 + r.start;
          const e = d * 1440 + (r.end > r.start ? r.end : r.end + 1440);
          return (m >= s && m < e) || (m + 10080 >= s && m + 10080 < e);
        }),
      ),
    );
  }

  it('round trip: parse(format(h)) equals h, and format is idempotent', () => {
    fc.assert(
      fc.property(spec, (rules) => {
        const h = parseHours(rules.map((r) => r.text).join(', '));
        const f = formatHours(h);
        expect(parseHours(f)).toEqual(h);
        expect(formatHours(parseHours(f))).toBe(f);
      }),
      { numRuns: 300 },
    );
  });

  it('isOpen matches the grammar on a UTC week', () => {
    fc.assert(
      fc.property(spec, fc.integer({ min: 0, max: 10079 }), (rules, m) => {
        const h = parseHours(rules.map((r) => r.text).join(','));
        expect(isOpen(h, 'UTC', new Date(MONDAY_UTC + m * 60_000))).toBe(modelOpen(rules, m));
      }),
      { numRuns: 500 },
    );
  });
});

describe('isOpen / nextOpen in America/New_York across DST', () => {
  it('spring forward 2026-03-08: 02:30 does not exist, so the window opens at 03:00 EDT', () => {
    const h = parseHours('sun 02:30-05:00');
    expect(isOpen(h, NY, at('2026-03-08T06:59:00Z'))).toBe(false); // 01:59 EST
    expect(isOpen(h, NY, at('2026-03-08T07:00:00Z'))).toBe(true); // 03:00 EDT
    expect(iso(nextOpen(h, NY, at('2026-03-08T05:00:00Z')))).toBe('2026-03-08T07:00:00.000Z');
    expect(iso(nextOpen(h, NY, at('2026-03-08T06:59:59.500Z')))).toBe('2026-03-08T07:00:00.000Z');
  });

  it('spring forward: a window entirely inside the gap does not happen that day', () => {
    const h = parseHours('sun 02:00-02:30');
    expect(iso(nextOpen(h, NY, at('2026-03-08T05:00:00Z')))).toBe('2026-03-15T06:00:00.000Z');
  });

  it('spring forward: a window before the gap closes at the jump', () => {
    const h = parseHours('sun 01:00-02:30');
    expect(isOpen(h, NY, at('2026-03-08T06:59:00Z'))).toBe(true);
    expect(isOpen(h, NY, at('2026-03-08T07:00:00Z'))).toBe(false);
  });

  it('fall back 2026-11-01: a repeated opening time opens at its first occurrence', () => {
    const h = parseHours('sun 01:30-03:00');
    expect(iso(nextOpen(h, NY, at('2026-11-01T04:00:00Z')))).toBe('2026-11-01T05:30:00.000Z'); // 01:30 EDT
    expect(isOpen(h, NY, at('2026-11-01T05:59:00Z'))).toBe(true); // 01:59 EDT
    expect(isOpen(h, NY, at('2026-11-01T06:00:00Z'))).toBe(false); // 01:00 EST: wall clock went back
    expect(iso(nextOpen(h, NY, at('2026-11-01T06:10:00Z')))).toBe('2026-11-01T06:30:00.000Z'); // 01:30 EST
    expect(isOpen(h, NY, at('2026-11-01T07:59:00Z'))).toBe(true); // 02:59 EST
    expect(isOpen(h, NY, at('2026-11-01T08:00:00Z'))).toBe(false); // 03:00 EST
  });

  it('fall back: an opening after the repeated hour uses the new offset', () => {
    expect(iso(nextOpen(parseHours('sun 03:00-04:00'), NY, at('2026-11-01T05:00:00Z')))).toBe('2026-11-01T08:00:00.000Z');
    expect(iso(nextOpen(parseHours('sun 02:00-03:00'), NY, at('2026-11-01T04:00:00Z')))).toBe('2026-11-01T07:00:00.000Z');
  });

  it('over a weekend (and the spring-forward Sunday) to Monday 09:00 EDT', () => {
    const h = parseHours('mon-fri 09:00-17:00');
    expect(isOpen(h, NY, at('2026-03-06T21:59:00Z'))).toBe(true); // Fri 16:59 EST
    expect(isOpen(h, NY, at('2026-03-06T22:00:00Z'))).toBe(false); // Fri 17:00 EST
    expect(iso(nextOpen(h, NY, at('2026-03-06T22:00:00Z')))).toBe('2026-03-09T13:00:00.000Z');
    expect(iso(nextOpen(h, NY, at('2026-03-07T17:00:00Z')))).toBe('2026-03-09T13:00:00.000Z');
  });
});

describe('across midnight', () => {
  const h = parseHours('fri 20:00-02:00');
  const BER = 'Europe/Berlin';
  it('is open Friday 20:00 to Saturday 02:00 local', () => {
    expect(isOpen(h, BER, at('2026-03-13T18:59:00Z'))).toBe(false); // Fri 19:59 CET
    expect(isOpen(h, BER, at('2026-03-13T19:00:00Z'))).toBe(true); // Fri 20:00
    expect(isOpen(h, BER, at('2026-03-13T23:30:00Z'))).toBe(true); // Sat 00:30
    expect(isOpen(h, BER, at('2026-03-14T00:59:00Z'))).toBe(true); // Sat 01:59
    expect(isOpen(h, BER, at('2026-03-14T01:00:00Z'))).toBe(false); // Sat 02:00
    expect(iso(nextOpen(h, BER, at('2026-03-14T01:00:00Z')))).toBe('2026-03-20T19:00:00.000Z');
  });
  it('a Sunday night window runs into Monday', () => {
    const sun = parseHours('sun 22:00-02:00');
    expect(isOpen(sun, 'UTC', at('2026-03-09T01:59:00Z'))).toBe(true); // Mon 01:59
    expect(isOpen(sun, 'UTC', at('2026-03-09T02:00:00Z'))).toBe(false);
    expect(iso(nextOpen(sun, 'UTC', at('2026-03-09T02:00:00Z')))).toBe('2026-03-15T22:00:00.000Z');
  });
});

describe('edge cases', () => {
  it('always open returns the instant itself; never returns null', () => {
    const t = at('2026-05-05T10:11:12.345Z');
    expect(nextOpen(parseHours('mon-sun 00:00-24:00'), NY, t)).toEqual(t);
    expect(nextOpen(parseHours('never'), NY, t)).toBeNull();
    expect(isOpen(parseHours('never'), NY, t)).toBe(false);
  });

  it('an open instant with seconds is returned as is', () => {
    const t = at('2026-03-10T14:00:30.5Z'); // Tue 10:00:30 EDT
    expect(nextOpen(parseHours('mon-fri 09:00-17:00'), NY, t)).toEqual(t);
  });

  it('half-hour zones and half-hour DST (Australia/Lord_Howe)', () => {
    const h = parseHours('sun 02:00-03:00');
    // 2026-04-05 Lord Howe falls back at 02:00 +11 (15:00Z) to 01:30 +10:30, so 02:00
    // is never shown before the change and first occurs at 02:00 +10:30 = 15:30Z.
    expect(iso(nextOpen(h, 'Australia/Lord_Howe', at('2026-04-04T13:00:00Z')))).toBe('2026-04-04T15:30:00.000Z');
    expect(isOpen(h, 'Australia/Lord_Howe', at('2026-04-04T14:59:00Z'))).toBe(false); // 01:59 +11
    expect(isOpen(parseHours('mon 09:00-10:00'), 'Asia/Kolkata', at('2026-03-09T03:30:00Z'))).toBe(true);
    expect(isOpen(parseHours('mon 09:00-10:00'), 'Asia/Kolkata', at('2026-03-09T03:29:00Z'))).toBe(false);
  });

  // Brute force: scan minute by minute from `at` and compare.
  const zones = [NY, 'Europe/Berlin', 'Australia/Lord_Howe', 'America/St_Johns', 'Asia/Kolkata'];
  const transitions = [
    '2026-03-08T07:00:00Z',
    '2026-11-01T06:00:00Z',
    '2026-03-29T01:00:00Z',
    '2026-10-25T01:00:00Z',
    '2026-04-04T15:00:00Z',
  ];
  it('nextOpen equals a minute-by-minute scan near DST changes', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...zones),
        fc.constantFrom(...transitions),
        fc.integer({ min: -3 * 1440, max: 1440 }),
        fc.constantFrom(
          'sun 02:30-05:00',
          'sun 01:30-03:00',
          'mon-fri 09:00-17:00',
          'sat 23:00-02:30',
          'sun 02:00-02:30',
          'wed 12:00-12:01',
        ),
        (tz, tr, offsetMin, spec) => {
          const h = parseHours(spec);
          const start = new Date(Date.parse(tr) + offsetMin * 60_000);
          const got = nextOpen(h, tz, start);
          let want: Date | null = null;
          for (let m = 0; m <= 8 * 1440; m++) {
            const t = new Date(start.getTime() + m * 60_000);
            if (isOpen(h, tz, t)) {
              want = t;
              break;
            }
          }
          expect(iso(got)).toBe(iso(want));
        },
      ),
      { numRuns: 40 },
    );
  });
});

describe('timezones and the local window', () => {
  it('validateTimeZone', () => {
    expect(validateTimeZone(NY)).toBe(NY);
    expect(validateTimeZone('america/new_york')).toBe(NY);
    expect(validateTimeZone('Asia/Kolkata')).toBe('Asia/Kolkata');
    expect(validateTimeZone('UTC')).toBe('UTC');
    for (const bad of ['Mars/Olympus', '+05:00', '-0300', '', ' UTC', 'New York']) {
      expect(() => validateTimeZone(bad)).toThrow(`invalid timezone "${bad}"`);
    }
    expect(() => isOpen(parseHours('mon 09:00-10:00'), 'Nowhere/Town', new Date())).toThrow('invalid timezone "Nowhere/Town"');
  });

  it('parseLocalWindow is mon-sun hours', () => {
    expect(formatHours(parseLocalWindow(DEFAULT_LOCAL_WINDOW))).toBe('mon-sun 08:00-21:00');
    expect(parseLocalWindow('00:00-24:00')).toEqual(parseHours('mon-sun 00:00-24:00'));
    expect(formatHours(parseLocalWindow('21:00-08:00'))).toBe('mon-sun 21:00-08:00');
    expect(() => parseLocalWindow('mon 08:00-21:00')).toThrow('invalid local window "mon 08:00-21:00"');
    expect(() => parseLocalWindow('08:00-25:00')).toThrow(/invalid local window "08:00-25:00": bad time "25:00"/);
  });

  it('a local window is checked on the called person’s clock', () => {
    const w: WeeklyHours = parseLocalWindow('08:00-21:00');
    const t = at('2026-06-01T12:30:00Z'); // 08:30 in New York, 05:30 in Los Angeles
    expect(isOpen(w, NY, t)).toBe(true);
    expect(isOpen(w, 'America/Los_Angeles', t)).toBe(false);
    expect(iso(nextOpen(w, 'America/Los_Angeles', t))).toBe('2026-06-01T15:00:00.000Z');
  });
});
