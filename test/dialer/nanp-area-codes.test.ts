import parseMax from 'libphonenumber-js/max';
import { describe, expect, it } from 'vitest';
import { isOpen, parseLocalWindow, validateTimeZone } from '../../src/scheduling/hours.js';
import {
  AREA_CODES_BY_REGION,
  areaCodeInfo,
  NANP_REGIONS,
  NARROWER,
  nanpAreaCodes,
  usStateForPhone,
} from '../../src/dialer/nanp-area-codes.js';
import { candidateZonesForPhone, timezoneForPhone } from '../../src/dialer/phone-timezone.js';

// Canadian per libphonenumber-js, but no source at hand names its province
// (see nanp-area-codes.ts): it falls back to every US/Canadian clock.
const UNPLACED = new Set(['273']);

/** Geographic (fixed-line or mobile) US and Canadian area codes per libphonenumber-js's metadata. */
function geographicAreaCodes(): Map<string, 'US' | 'CA'> {
  const out = new Map<string, 'US' | 'CA'>();
  for (let n = 200; n <= 999; n++) {
    const p = parseMax(`+1${n}2345678`);
    if (!p?.isValid() || (p.country !== 'US' && p.country !== 'CA')) continue;
    if (p.getType() === 'FIXED_LINE_OR_MOBILE' || p.getType() === 'FIXED_LINE' || p.getType() === 'MOBILE') {
      out.set(String(n), p.country);
    }
  }
  return out;
}

const phone = (npa: string) => `+1${npa}5550123`;

describe('US and Canadian area codes are held to the state or province they serve', () => {
  it('every geographic US/Canadian area code in service has a state or province, of the right country', () => {
    const inService = geographicAreaCodes();
    expect(inService.size).toBeGreaterThan(400);
    const missing = [...inService.keys()].filter((npa) => !areaCodeInfo(npa) && !UNPLACED.has(npa));
    expect(missing).toEqual([]);
    const wrongCountry = [...inService].filter(([npa, c]) => areaCodeInfo(npa) && areaCodeInfo(npa)!.country !== c);
    expect(wrongCountry).toEqual([]);
    // and nothing in the table that libphonenumber does not know as geographic
    expect([...nanpAreaCodes().keys()].filter((npa) => !inService.has(npa))).toEqual([]);
  });

  it("the dialer's zones for every such code are among its state's or province's zones", () => {
    const bad: string[] = [];
    for (const [npa, info] of nanpAreaCodes()) {
      const allowed = new Set(info.regions.flatMap((r) => NANP_REGIONS[r]!.zones));
      const zones = candidateZonesForPhone(phone(npa));
      if (zones.length === 0 || zones.some((z) => !allowed.has(z))) bad.push(`${npa} ${info.regions}: ${zones.join(' ')}`);
    }
    expect(bad).toEqual([]);
  });

  it('a code in a one-zone state or province gets exactly that zone', () => {
    const bad: string[] = [];
    for (const [npa, info] of nanpAreaCodes()) {
      const zones = new Set(info.regions.flatMap((r) => NANP_REGIONS[r]!.zones));
      if (zones.size === 1 && timezoneForPhone(phone(npa)) !== [...zones][0]) bad.push(npa);
    }
    expect(bad).toEqual([]);
  });

  it('689 (Orlando, Florida) is on Eastern time, as are 407 and 321 that it overlays', () => {
    expect(areaCodeInfo('689')?.regions).toEqual(['FL']);
    for (const npa of ['689', '407', '321']) expect(timezoneForPhone(phone(npa))).toBe('America/New_York');
    // 21:30 in Orlando on a summer evening: past the federal 21:00 limit.
    const evening = new Date('2026-07-15T01:30:00Z');
    expect(candidateZonesForPhone(phone('689')).every((z) => isOpen(parseLocalWindow('08:00-21:00'), z, evening))).toBe(false);
  });

  it('overlays share the zones of the codes they overlay', () => {
    const complexes = [
      ['850', '448'],
      ['407', '321', '689'],
      ['305', '786', '645'],
      ['561', '728'],
      ['904', '324'],
      ['813', '656'],
      ['270', '364'],
      ['812', '930'],
      ['208', '986'],
      ['541', '458'],
      ['250', '778', '236', '672', '257'],
      ['418', '581', '367'],
      ['709', '879'],
      ['306', '639', '474'],
      ['204', '431', '584'],
      ['403', '780', '587', '825', '368'],
      ['915'],
      ['334'],
    ];
    for (const codes of complexes) {
      const zones = codes.map((npa) => areaCodeInfo(npa)?.zones.join(' '));
      expect(new Set(zones).size, codes.join('/')).toBe(1);
    }
  });

  it('codes whose territory crosses a zone line get every clock on both sides', () => {
    const zones = (npa: string) => [...(areaCodeInfo(npa)?.zones ?? [])];
    expect(zones('850')).toEqual(['America/Chicago', 'America/New_York']);
    expect(zones('915')).toEqual(['America/Denver']); // El Paso
    expect(zones('432')).toEqual(['America/Chicago']); // Midland, Odessa, Van Horn
    expect(zones('928')).toEqual(['America/Denver', 'America/Phoenix']); // the Navajo Nation keeps DST
    expect(zones('602')).toEqual(['America/Phoenix']);
    expect(zones('907')).toEqual(['America/Adak', 'America/Anchorage']);
    expect(zones('807')).toEqual(['America/Atikokan', 'America/Toronto', 'America/Winnipeg']);
    expect(zones('306')).toContain('America/Regina');
    expect(zones('867')).toEqual(expect.arrayContaining(['America/Whitehorse', 'America/Toronto', 'America/Edmonton']));
  });

  it('NARROWER names only codes of multi-zone regions, each once, with zones of that region', () => {
    const seen = new Map<string, number>();
    for (const codes of Object.values(NARROWER)) for (const npa of codes.trim().split(/\s+/)) seen.set(npa, (seen.get(npa) ?? 0) + 1);
    for (const [npa, count] of seen) {
      const info = areaCodeInfo(npa);
      expect(info, npa).not.toBeNull();
      expect(count, npa).toBe(1);
      expect(info!.regions.flatMap((r) => NANP_REGIONS[r]!.zones).length, npa).toBeGreaterThan(1);
    }
  });

  it('every area code is listed once, under regions that exist, and every zone is known to this Node', () => {
    const all = Object.values(AREA_CODES_BY_REGION).flatMap((s) => s.trim().split(/\s+/));
    expect(new Set(all).size).toBe(all.length);
    for (const r of Object.keys(AREA_CODES_BY_REGION).flatMap((k) => k.split(' '))) expect(NANP_REGIONS[r], r).toBeDefined();
    for (const region of Object.values(NANP_REGIONS)) for (const z of region.zones) expect(validateTimeZone(z)).toBe(z);
    // all 50 states and DC, and the 13 provinces and territories
    const byCountry = (c: string) => Object.values(NANP_REGIONS).filter((r) => r.country === c).length;
    expect([byCountry('US'), byCountry('CA')]).toEqual([51, 13]);
  });
});

describe('usStateForPhone', () => {
  it.each([
    ['+16895550123', 'FL'],
    ['+1 (212) 555-0123', 'NY'],
    ['+12025550123', 'DC'],
    ['+19075550123', 'AK'],
    ['+18085550123', 'HI'],
    // not a ten-digit NANP number, but its area code is California's, as its zone is: the state's rules apply
    ['+141555501239', 'CA'],
    ['+1212555012', 'NY'],
    ['+12121550123', 'NY'],
  ])('%s -> %s', (e164, state) => expect(usStateForPhone(e164)).toBe(state));

  it.each([
    ['+14165550123', 'Canada'],
    ['+17875550123', 'Puerto Rico, a territory'],
    ['+18005550123', 'toll-free'],
    ['+12735550123', 'unplaced Canadian code'],
    ['+442079460000', 'not NANP'],
    ['+121255', 'too short to be a number'],
    ['12125550123', 'no plus'],
    ['+1212555012345678', 'longer than E.164 allows'],
  ])('%s is null (%s)', (e164) => expect(usStateForPhone(e164)).toBeNull());
});
