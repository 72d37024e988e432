/**
 * US federal holidays as observed, computed per year: the legal public
 * holidays of 5 U.S.C. 6103(a), moved by the observance rule of 6103(b) and
 * Executive Order 11582: a holiday on a Saturday is observed on the Friday
 * before, one on a Sunday on the Monday after. So New Year's Day on a
 * Saturday is observed on December 31 of the year before. Inauguration Day
 * (6103(c)) is a holiday only in and around Washington, D.C., and is left out.
 */

export interface Holiday {
  /** the observed date, YYYY-MM-DD */
  date: string;
  name: string;
}

const day = (y: number, m: number, d: number) => new Date(Date.UTC(y, m - 1, d));
const ymd = (t: Date) => t.toISOString().slice(0, 10);

/** the nth (1-based) weekday (0 = Sunday) of a month */
function nth(y: number, m: number, weekday: number, n: number): Date {
  const first = day(y, m, 1).getUTCDay();
  return day(y, m, 1 + ((weekday - first + 7) % 7) + (n - 1) * 7);
}

/** the last weekday (0 = Sunday) of a month */
function last(y: number, m: number, weekday: number): Date {
  const end = day(y, m + 1, 0);
  return day(y, m, end.getUTCDate() - ((end.getUTCDay() - weekday + 7) % 7));
}

/** a fixed-date holiday on a weekend is observed on the nearest weekday: Saturday -> Friday, Sunday -> Monday */
function observed(t: Date): Date {
  const w = t.getUTCDay();
  if (w === 6) return new Date(t.getTime() - 86_400_000);
  if (w === 0) return new Date(t.getTime() + 86_400_000);
  return t;
}

const cache = new Map<number, Holiday[]>();

/** The holidays whose date is observed in `year` (New Year's Day of year+1 may fall on Dec 31). */
export function usFederalHolidays(year: number): Holiday[] {
  let list = cache.get(year);
  if (list) return list;
  const of = (y: number): [Date, string][] => [
    [observed(day(y, 1, 1)), "New Year's Day"],
    [nth(y, 1, 1, 3), 'Birthday of Martin Luther King, Jr.'],
    [nth(y, 2, 1, 3), "Washington's Birthday"],
    [last(y, 5, 1), 'Memorial Day'],
    // Juneteenth National Independence Day Act, 2021 (Pub. L. 117-17)
    ...(y >= 2021 ? [[observed(day(y, 6, 19)), 'Juneteenth National Independence Day'] as [Date, string]] : []),
    [observed(day(y, 7, 4)), 'Independence Day'],
    [nth(y, 9, 1, 1), 'Labor Day'],
    [nth(y, 10, 1, 2), 'Columbus Day'],
    [observed(day(y, 11, 11)), 'Veterans Day'],
    [nth(y, 11, 4, 4), 'Thanksgiving Day'],
    [observed(day(y, 12, 25)), 'Christmas Day'],
  ];
  list = [...of(year), ...of(year + 1)]
    .filter(([t]) => t.getUTCFullYear() === year)
    .map(([t, name]) => ({ date: ymd(t), name }))
    .sort((a, b) => (a.date < b.date ? -1 : 1));
  cache.set(year, list);
  return list;
}

/** the holiday observed on a date (YYYY-MM-DD), if any */
export function usFederalHolidayOn(date: string): Holiday | undefined {
  return usFederalHolidays(Number(date.slice(0, 4))).find((h) => h.date === date);
}
