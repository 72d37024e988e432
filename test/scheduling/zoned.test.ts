/** wallClock keeps its last reading per zone: a reading holds for its minute, and only for it. */
import { describe, expect, it } from 'vitest';
import { wallClock } from '../../src/scheduling/zoned.js';

describe('wallClock', () => {
  it('reads each minute anew, in each zone, across a DST change', () => {
    // 2026-03-08 in New York: 01:59 EST is followed by 03:00 EDT
    const before = Date.parse('2026-03-08T06:59:30Z');
    const after = Date.parse('2026-03-08T07:00:10Z');
    const monday = (d: number, h: number, m: number) => d * 1440 + h * 60 + m; // Sunday is day 6
    expect(wallClock('America/New_York', before)).toEqual({ minuteOfWeek: monday(6, 1, 59), offset: -300 });
    expect(wallClock('America/New_York', before + 20_000)).toEqual({ minuteOfWeek: monday(6, 1, 59), offset: -300 });
    expect(wallClock('Europe/Paris', before)).toEqual({ minuteOfWeek: monday(6, 7, 59), offset: 60 });
    expect(wallClock('America/New_York', after)).toEqual({ minuteOfWeek: monday(6, 3, 0), offset: -240 });
    expect(wallClock('America/New_York', before)).toEqual({ minuteOfWeek: monday(6, 1, 59), offset: -300 });
  });
});
