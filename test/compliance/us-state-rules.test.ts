import { describe, expect, it } from 'vitest';
import { formatHours, isOpen, parseHours, parseLocalWindow } from '../../src/scheduling/hours.js';
import { NANP_REGIONS, usStateForPhone } from '../../src/dialer/nanp-area-codes.js';
import { candidateZonesForPhone } from '../../src/dialer/phone-timezone.js';
import { FEDERAL_HOURS, US_STATE_RULES } from '../../src/compliance/us-state-rules.js';
import { intersectHours, stateRules, stateWindow } from '../../src/compliance/us-state-window.js';

const fmt = (state: string, kind?: 'automated' | 'live', at?: Date) => formatHours(stateWindow(state, kind, at).hours);

describe('the US state rules table', () => {
  it('names each US state once, by a code the area-code table knows', () => {
    const codes = US_STATE_RULES.map((r) => r.state);
    expect(new Set(codes).size).toBe(codes.length);
    for (const r of US_STATE_RULES) {
      expect(NANP_REGIONS[r.state]?.country, r.state).toBe('US');
      expect(r.name).toBe(NANP_REGIONS[r.state]!.name);
    }
  });

  it('every rule part parses, is sourced, and restricts something federal law allows', () => {
    const federal = parseHours(FEDERAL_HOURS);
    for (const r of US_STATE_RULES) {
      for (const part of r.parts) {
        expect(part.sources.length, r.state).toBeGreaterThan(0);
        for (const s of part.sources) {
          expect(s.cite.length, r.state).toBeGreaterThan(5);
          expect(s.url, r.state).toMatch(/^https?:\/\/[^\s]+$/);
        }
        if (part.holidays && part.holidays !== 'closed') parseLocalWindow(part.holidays);
        const narrower = part.hours !== null && formatHours(intersectHours(parseHours(part.hours), federal)) !== FEDERAL_HOURS;
        expect(narrower || part.holidays !== undefined, r.state).toBe(true);
      }
    }
  });
});

describe('stateWindow', () => {
  it('a state without a stricter rule, or an unknown code, gets the federal window', () => {
    for (const s of ['NY', 'GA', 'ZZ', '']) {
      expect(fmt(s)).toBe('mon-sun 08:00-21:00');
      expect(stateWindow(s).holidays).toBeNull();
      expect(stateWindow(s).closedDays).toEqual([]);
    }
    expect(stateRules('NY')).toBeNull();
    expect(stateRules('fl')?.name).toBe('Florida');
  });

  it.each([
    ['FL', 'mon-sun 08:00-20:00'],
    ['CT', 'mon-sun 09:00-20:00'],
    ['WA', 'mon-sun 08:00-20:00'],
    ['MD', 'mon-sun 08:00-20:00'],
    ['KY', 'mon-sun 10:00-21:00'],
    ['TX', 'mon-sat 09:00-21:00, sun 12:00-21:00'],
    ['AL', 'mon-sat 08:00-20:00'],
    ['LA', 'mon-sat 08:00-20:00'],
    ['MS', 'mon-sat 09:00-20:00'],
    ['UT', 'mon-sat 08:00-21:00'],
    ['RI', 'mon-fri 09:00-18:00, sat 10:00-17:00'],
    ['OK', 'mon-sun 09:00-20:00'], // 8-8 for all calls and 9-9 for dial-announcing devices
    ['SC', 'mon-sun 08:00-19:00'],
    ['ME', 'mon-fri 09:00-17:00'],
    ['SD', 'mon-fri 09:00-21:00'],
    ['PA', 'mon-sun 08:00-21:00'],
  ])('%s, automated calls: %s', (state, spec) => expect(fmt(state, 'automated')).toBe(spec));

  it('rules for automated calls only do not narrow live calls', () => {
    expect(fmt('ME', 'live')).toBe('mon-sun 08:00-21:00');
    expect(fmt('SC', 'live')).toBe('mon-sun 08:00-21:00');
    expect(fmt('OK', 'live')).toBe('mon-sun 08:00-20:00');
    expect(fmt('TX', 'live')).toBe('mon-sat 09:00-21:00, sun 12:00-21:00');
  });

  it('closed days and holidays', () => {
    expect(stateWindow('AL').closedDays).toEqual(['sun']);
    expect(stateWindow('RI').closedDays).toEqual(['sun']);
    expect(stateWindow('ME').closedDays).toEqual(['sat', 'sun']);
    expect(stateWindow('AL').holidays).toMatchObject({ window: null });
    expect(stateWindow('PA').holidays?.window).toBeNull();
    expect(stateWindow('PA').holidays?.calendars[0]).toContain('Good Friday');
    expect(stateWindow('MS').holidays).toBeNull(); // repealed in 2023
    const ne = stateWindow('NE');
    expect(formatHours(ne.hours)).toBe('mon-sat 08:00-21:00, sun 13:00-21:00');
    expect(formatHours(ne.holidays!.window!)).toBe('mon-sun 13:00-21:00');
    expect(stateWindow('NE', 'live').holidays).toBeNull();
  });

  it('leaves out rules not yet in force at the given instant', () => {
    expect(fmt('CT', 'live', new Date('2023-09-30T12:00:00Z'))).toBe('mon-sun 08:00-21:00');
    expect(fmt('CT', 'live', new Date('2023-10-02T12:00:00Z'))).toBe('mon-sun 09:00-20:00');
  });

  it('lists the federal source first and every applied rule after it', () => {
    const w = stateWindow('OK');
    expect(w.sources[0]!.cite).toContain('64.1200(c)(1)');
    expect(w.sources.some((s) => s.cite.includes('755.1'))).toBe(true);
    expect(stateWindow('OK', 'live').sources.some((s) => s.cite.includes('755.1'))).toBe(false);
  });

  it('from a number to its state window: an Orlando (689) lead at 20:30 local is outside Florida hours', () => {
    const phone = '+16895550123';
    const w = stateWindow(usStateForPhone(phone)!);
    const [zone] = candidateZonesForPhone(phone);
    expect(zone).toBe('America/New_York');
    expect(isOpen(w.hours, zone!, new Date('2026-07-15T00:30:00Z'))).toBe(false); // Tue 20:30 EDT
    expect(isOpen(w.hours, zone!, new Date('2026-07-14T23:30:00Z'))).toBe(true); // Tue 19:30 EDT
  });
});

describe('intersectHours', () => {
  const h = (spec: string) => parseHours(spec);
  it('keeps only the common minutes', () => {
    expect(formatHours(intersectHours(h('mon-fri 08:00-21:00'), h('mon-sun 09:00-20:00')))).toBe('mon-fri 09:00-20:00');
    expect(formatHours(intersectHours(h('mon 08:00-10:00'), h('mon 10:00-12:00')))).toBe('never');
    expect(formatHours(intersectHours(h('sun 22:00-02:00'), h('mon-sun 00:00-24:00')))).toBe('sun 22:00-02:00');
    expect(formatHours(intersectHours(h('mon 08:00-12:00, mon 13:00-17:00'), h('mon 11:00-14:00')))).toBe(
      'mon 11:00-12:00, mon 13:00-14:00',
    );
  });
});
