import { describe, expect, it } from 'vitest';
import { isOpen, parseLocalWindow, validateTimeZone } from '../../src/scheduling/hours.js';
import { candidateZonesForPhone, knownPrefixes, timezoneForPhone, zonesForLead } from '../../src/dialer/phone-timezone.js';

describe('timezoneForPhone', () => {
  it.each([
    ['+442079460000', 'Europe/London'],
    ['+4930123456', 'Europe/Berlin'],
    ['+33142685300', 'Europe/Paris'],
    ['+81312345678', 'Asia/Tokyo'],
    ['+912212345678', 'Asia/Kolkata'],
    ['+35312345678', 'Europe/Dublin'],
    ['+212522123456', 'Africa/Casablanca'],
    ['+905321234567', 'Europe/Istanbul'],
    ['+903921234567', 'Asia/Famagusta'],
    ['+34912345678', 'Europe/Madrid'], // Madrid landline
    ['+34922123456', 'Atlantic/Canary'], // Tenerife landline
    ['+351213456789', 'Europe/Lisbon'],
    ['+351296123456', 'Atlantic/Azores'],
    ['+5511912345678', 'America/Sao_Paulo'],
    ['+61291234567', 'Australia/Sydney'],
    ['+74951234567', 'Europe/Moscow'],
  ])('%s -> %s', (phone, zone) => expect(timezoneForPhone(phone)).toBe(zone));

  it.each([
    ['+12125550123', 'America/New_York'], // Manhattan
    ['+13125550123', 'America/Chicago'], // Chicago
    ['+13035550123', 'America/Denver'], // Denver
    ['+16025550123', 'America/Phoenix'], // Phoenix, no DST
    ['+14155550123', 'America/Los_Angeles'], // San Francisco
    ['+19075550123', null], // Alaska spans Anchorage and Adak
    ['+18085550123', 'Pacific/Honolulu'],
    ['+14165550123', 'America/Toronto'],
    ['+16045550123', 'America/Vancouver'],
    ['+17805550123', 'America/Edmonton'],
    ['+15065550123', 'America/Halifax'],
    ['+17875550123', 'America/Puerto_Rico'],
    ['+18765550123', 'America/Jamaica'],
    ['+1 (415) 555-0123', 'America/Los_Angeles'], // pasted punctuation
  ])('NANP %s -> %s', (phone, zone) => expect(timezoneForPhone(phone)).toBe(zone));

  it.each([
    ['+18505550123', 'Florida panhandle, split Central/Eastern'],
    ['+14485550123', 'overlay of the split 850'],
    ['+12085550123', 'Idaho, split Mountain/Pacific'],
    ['+18005550123', 'toll-free'],
    ['+15555550123', 'no such area code'],
    ['+79161234567', 'Russian mobile'],
    ['+77011234567', 'Kazakh mobile'],
    ['+34612345678', 'Spanish mobile: mainland or Canaries'],
    ['+61412345678', 'Australian mobile'],
    ['+5215512345678', 'Mexico, old mobile format'],
    ['+6281234567890', 'Indonesian mobile'],
    ['+8821234567', 'international network, no country'],
    ['4155550123', 'not E.164'],
    ['+0123456789', 'not E.164'],
    ['', 'empty'],
  ])('%s is null (%s)', (phone) => expect(timezoneForPhone(phone)).toBeNull());
});

describe('candidateZonesForPhone', () => {
  it('one zone when the prefix pins it', () => {
    expect(candidateZonesForPhone('+442079460000')).toEqual(['Europe/London']);
  });
  it('every zone of the country otherwise', () => {
    expect(candidateZonesForPhone('+34612345678').sort()).toEqual(['Atlantic/Canary', 'Europe/Madrid']);
    expect(candidateZonesForPhone('+18505550123').sort()).toEqual(['America/Chicago', 'America/New_York']);
    const nanp = candidateZonesForPhone('+18005550123');
    expect(nanp).toEqual(expect.arrayContaining(['America/New_York', 'America/Los_Angeles', 'Pacific/Honolulu', 'America/St_Johns']));
    const russia = candidateZonesForPhone('+79161234567');
    expect(russia).toEqual(expect.arrayContaining(['Europe/Kaliningrad', 'Europe/Moscow', 'Asia/Kamchatka']));
    expect(russia).not.toContain('Asia/Almaty');
  });
  it('an unknown +1 area code: the US and Canada, Newfoundland to Hawaii, Alaska included; not Guam, Saipan or American Samoa', () => {
    const zones = candidateZonesForPhone('+15555550123');
    expect(zones).toEqual(
      expect.arrayContaining([
        'America/St_Johns',
        'America/Halifax',
        'America/New_York',
        'America/Anchorage',
        'America/Adak',
        'Pacific/Honolulu',
      ]),
    );
    for (const z of ['Pacific/Guam', 'Pacific/Saipan', 'Pacific/Pago_Pago']) expect(zones).not.toContain(z);
    // Those territories keep their own area codes.
    expect(timezoneForPhone('+16715550123')).toBe('Pacific/Guam');
    expect(timezoneForPhone('+16705550123')).toBe('Pacific/Saipan');
    expect(timezoneForPhone('+16845550123')).toBe('Pacific/Pago_Pago');
  });
  it('so a toll-free number is callable in the US afternoon (it was never callable while Guam was in the set)', () => {
    const window = parseLocalWindow('08:00-21:00');
    const afternoon = new Date('2026-03-10T19:00:00Z'); // 15:00 in New York, 09:00 in Honolulu, 05:00 next day in Guam
    expect(candidateZonesForPhone('+18005550123').every((z) => isOpen(window, z, afternoon))).toBe(true);
  });
  it('nothing for unknown countries and non-numbers', () => {
    expect(candidateZonesForPhone('+8821234567')).toEqual([]);
    expect(candidateZonesForPhone('hello')).toEqual([]);
  });
  it('returns a copy callers may mutate', () => {
    candidateZonesForPhone('+34612345678').push('X/Y');
    expect(candidateZonesForPhone('+34612345678')).toHaveLength(2);
  });
  it('every zone in the table is a valid IANA zone on this Node', () => {
    const bad: string[] = [];
    for (const [prefix, zones] of knownPrefixes()) {
      expect(prefix).toMatch(/^[1-9]\d*$/);
      for (const z of zones) {
        try {
          validateTimeZone(z);
        } catch {
          bad.push(`${prefix}:${z}`);
        }
      }
    }
    expect(bad).toEqual([]);
  });
});

describe('zonesForLead', () => {
  it('metadata.timezone narrows: its zone and the number’s both hold, never the metadata alone', () => {
    const lead = { phoneNumber: '+442079460000', metadata: { timezone: 'America/Chicago' } };
    expect(zonesForLead(lead)).toEqual(['America/Chicago', 'Europe/London']);
    // a +1 212 lead claiming to be in Kolkata: New York's clock still holds
    expect(zonesForLead({ phoneNumber: '+12125550100', metadata: { timezone: 'Asia/Kolkata' } })).toEqual([
      'Asia/Kolkata',
      'America/New_York',
    ]);
    // the same zone is not checked twice
    expect(zonesForLead({ phoneNumber: '+442079460000', metadata: { timezone: 'Europe/London' } })).toEqual(['Europe/London']);
    // a prefetch lead (no number yet) has the metadata's zone only
    expect(zonesForLead({ phoneNumber: null, metadata: { timezone: 'Asia/Tokyo' } })).toEqual(['Asia/Tokyo']);
  });
  it('the number alone when metadata.timezone is missing or invalid', () => {
    for (const metadata of [undefined, null, {}, { timezone: 'Mars/Base' }, { timezone: 42 }, 'x', { timezone: '+02:00' }]) {
      expect(zonesForLead({ phoneNumber: '+442079460000', metadata })).toEqual(['Europe/London']);
    }
  });
  it('[] when nothing is known', () => {
    expect(zonesForLead({})).toEqual([]);
    expect(zonesForLead({ phoneNumber: null, metadata: { tz: 'Europe/Paris' } })).toEqual([]);
    expect(zonesForLead({ phoneNumber: '+18505550123' }).sort()).toEqual(['America/Chicago', 'America/New_York']);
    expect(zonesForLead({ phoneNumber: '+8821234567' })).toEqual([]);
  });
});
