/**
 * Closed dates without a database: the US federal holidays as observed
 * (5 U.S.C. 6103), the setting's canonical form, and the next open instant
 * after a closed date on the called person's calendar across DST changes.
 * docs/compliance.md "Closed dates".
 */
import { describe, expect, it } from 'vitest';
import { parseSetting } from '../../src/campaigns/settings.js';
import { earliestOpen, explainDue } from '../../src/dialer/due.js';
import { isClosedAt, parseClosedDates } from '../../src/scheduling/closed-dates.js';
import { parseHours, parseLocalWindow } from '../../src/scheduling/hours.js';
import { usFederalHolidays } from '../../src/scheduling/us-federal-holidays.js';
import { parseForm } from '../../src/web/campaign-form.js';

const ALWAYS = parseHours('mon-sun 00:00-24:00');
const iso = (d: Date | null) => d?.toISOString() ?? null;

describe('US federal holidays', () => {
  it('2026: Independence Day on a Saturday is observed on Friday July 3', () => {
    expect(usFederalHolidays(2026).map((h) => h.date)).toEqual([
      '2026-01-01',
      '2026-01-19',
      '2026-02-16',
      '2026-05-25',
      '2026-06-19',
      '2026-07-03',
      '2026-09-07',
      '2026-10-12',
      '2026-11-11',
      '2026-11-26',
      '2026-12-25',
    ]);
  });

  it("2027: Sunday holidays move to Monday, Saturday ones to Friday, and 2028's New Year's Day to 2027-12-31", () => {
    const dates = usFederalHolidays(2027).map((h) => h.date);
    expect(dates).toEqual([
      '2027-01-01',
      '2027-01-18',
      '2027-02-15',
      '2027-05-31',
      '2027-06-18',
      '2027-07-05',
      '2027-09-06',
      '2027-10-11',
      '2027-11-11',
      '2027-11-25',
      '2027-12-24',
      '2027-12-31',
    ]);
    // 2028 starts with no New Year's Day of its own: it was observed in 2027
    expect(usFederalHolidays(2028)[0]!.date).toBe('2028-01-17');
    expect(usFederalHolidays(2020).some((h) => h.name.startsWith('Juneteenth'))).toBe(false);
  });
});

describe('the --closed-dates setting', () => {
  it('is stored canonically: us-federal first, dates sorted and once', () => {
    expect(parseSetting.closedDates(' 2026-12-31, US-Federal ,2026-12-24,2026-12-31')).toBe('us-federal,2026-12-24,2026-12-31');
    expect(parseSetting.closedDates('none')).toBe('');
    expect(parseSetting.closedDates('')).toBe('');
  });

  it('refuses what is not a date', () => {
    expect(() => parseSetting.closedDates('2026-02-30')).toThrow(/--closed-dates: "2026-02-30" is not a date/);
    expect(() => parseSetting.closedDates('24/12/2026')).toThrow(/--closed-dates/);
    expect(() => parseSetting.closedDates('us-state')).toThrow(/or us-federal/);
  });

  it('the dashboard form reads it and the consent choice with the same parsers', () => {
    const base = {
      timezone: 'UTC',
      hours: 'mon-fri 09:00-17:00',
      local_window: '08:00-21:00',
      max_attempts: '3',
      retry_delay: '30m',
      concurrency: '1',
      provider: 'simulate',
      simulate_success: '0.5',
    };
    const { settings } = parseForm({ ...base, closed_dates: '2026-12-24, us-federal', require_consent: 'yes' });
    expect(settings).toMatchObject({ closed_dates: 'us-federal,2026-12-24', require_consent: 1 });
    // a form from before the fields leaves them alone
    const old = parseForm(base).settings;
    expect(old.closed_dates).toBeUndefined();
    expect(old.require_consent).toBeUndefined();
    expect(() => parseForm({ ...base, closed_dates: 'tomorrow' })).toThrow(/Closed dates: "tomorrow"/);
    expect(() => parseForm({ ...base, require_consent: 'maybe' })).toThrow(/Require consent must be yes or no/);
    expect(parseForm({ ...base, closed_dates: '', require_consent: 'no' }).settings).toMatchObject({
      closed_dates: '',
      require_consent: 0,
    });
  });
});

describe('closed dates on the called person’s calendar', () => {
  const closed = parseClosedDates('2026-11-01,2026-03-08,2026-03-07');

  it('New York on the day DST ends: the day is 25 hours, from 04:00Z to 05:00Z the next day', () => {
    const ny = 'America/New_York';
    expect(isClosedAt(closed, ny, new Date('2026-11-01T03:59:00Z'))).toBe(false); // Oct 31, 23:59 EDT
    expect(isClosedAt(closed, ny, new Date('2026-11-01T04:00:00Z'))).toBe(true);
    expect(iso(earliestOpen([[ALWAYS, ny, closed]], new Date('2026-11-01T04:00:00Z')))).toBe('2026-11-02T05:00:00.000Z');
    // with a local window, the window's opening on the next day (EST now)
    expect(iso(earliestOpen([[parseLocalWindow('08:00-21:00'), ny, closed]], new Date('2026-11-01T12:00:00Z')))).toBe(
      '2026-11-02T13:00:00.000Z',
    );
  });

  it('New York on the day DST starts: a 23-hour day, open again at 04:00Z', () => {
    expect(iso(earliestOpen([[ALWAYS, 'America/New_York', closed]], new Date('2026-03-08T05:00:00Z')))).toBe('2026-03-09T04:00:00.000Z');
  });

  it('Havana, whose clocks skip midnight: the day after a closed date starts at 01:00', () => {
    // 2026-03-08 00:00 CST does not exist in Havana: clocks go to 01:00 CDT (05:00Z)
    const havana = parseClosedDates('2026-03-07');
    expect(iso(earliestOpen([[ALWAYS, 'America/Havana', havana]], new Date('2026-03-07T12:00:00Z')))).toBe('2026-03-08T05:00:00.000Z');
    // two closed days in a row, the second 23 hours long
    expect(iso(earliestOpen([[ALWAYS, 'America/Havana', closed]], new Date('2026-03-07T12:00:00Z')))).toBe('2026-03-09T04:00:00.000Z');
  });

  it('explain: closed in the person’s zone while open in the campaign’s, with the next due time after it', () => {
    const why = explainDue(
      {
        status: 'raw',
        attempts: 0,
        maxAttempts: 3,
        scheduledFor: null,
        nextAttemptAt: null,
        claimedBy: null,
        claimExpiresAt: null,
        campaign: {
          hours: ALWAYS,
          timezone: 'Pacific/Auckland',
          localWindow: ALWAYS,
          closedDates: parseClosedDates('us-federal'),
        },
        leadZones: ['America/Los_Angeles'],
      },
      // Christmas Day in Los Angeles (10:00 PST), already Dec 26 in Auckland
      new Date('2026-12-25T18:00:00Z'),
    );
    expect(why.reasons).toEqual(['closed date']);
    expect(why.details['closed date']).toBe('2026-12-25 in America/Los_Angeles (Christmas Day, us-federal)');
    expect(iso(why.nextDueAt)).toBe('2026-12-26T08:00:00.000Z');
  });
});
