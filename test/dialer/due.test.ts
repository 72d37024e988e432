import { describe, expect, it } from 'vitest';
import { explainDue, type DueInput } from '../../src/dialer/due.js';
import { parseHours, parseLocalWindow } from '../../src/scheduling/hours.js';

const NY = 'America/New_York';
const d = (iso: string) => new Date(iso);

function lead(over: Partial<DueInput> = {}): DueInput {
  return {
    status: 'attempting',
    attempts: 1,
    maxAttempts: 3,
    scheduledFor: null,
    nextAttemptAt: null,
    claimedBy: null,
    claimExpiresAt: null,
    campaign: { hours: parseHours('mon-fri 09:00-17:00'), timezone: NY, localWindow: parseLocalWindow('08:00-21:00') },
    leadZones: [NY],
    ...over,
  };
}

// Tuesday 2026-03-10 10:00 EDT (14:00Z): inside campaign hours and the local window.
const NOW = d('2026-03-10T14:00:00Z');

describe('explainDue', () => {
  it('due now: no reasons and nextDueAt = now', () => {
    expect(explainDue(lead(), NOW)).toMatchObject({ due: true, reasons: [], nextDueAt: NOW });
    expect(explainDue(lead({ status: 'raw', attempts: 0 }), NOW).due).toBe(true);
  });

  it('already concluded', () => {
    const r = explainDue(lead({ status: 'concluded' }), NOW);
    expect(r).toMatchObject({ due: false, reasons: ['already concluded'], nextDueAt: null });
  });

  it('attempts used up, by status or by count', () => {
    expect(explainDue(lead({ status: 'exhausted' }), NOW)).toMatchObject({ due: false, reasons: ['attempts used up'], nextDueAt: null });
    expect(explainDue(lead({ attempts: 3 }), NOW)).toMatchObject({ due: false, reasons: ['attempts used up'], nextDueAt: null });
  });

  it('scheduled later: scheduledFor or nextAttemptAt in the future', () => {
    const s = explainDue(lead({ scheduledFor: d('2026-03-10T16:00:00Z') }), NOW);
    expect(s).toMatchObject({ due: false, reasons: ['scheduled later'], nextDueAt: d('2026-03-10T16:00:00Z') });
    const n = explainDue(lead({ nextAttemptAt: d('2026-03-10T15:30:00Z'), scheduledFor: d('2026-03-01T00:00:00Z') }), NOW);
    expect(n).toMatchObject({ due: false, reasons: ['scheduled later'], nextDueAt: d('2026-03-10T15:30:00Z') });
    // Scheduled after closing: waits for the next opening.
    const late = explainDue(lead({ nextAttemptAt: d('2026-03-10T22:00:00Z') }), NOW); // 18:00 EDT
    expect(late.nextDueAt).toEqual(d('2026-03-11T13:00:00Z')); // Wed 09:00 EDT
  });

  it('outside hours: waits over the weekend for Monday 09:00', () => {
    const sat = d('2026-03-07T17:00:00Z'); // Saturday 12:00 EST
    const r = explainDue(lead(), sat);
    expect(r.reasons).toEqual(['outside hours']);
    expect(r.nextDueAt).toEqual(d('2026-03-09T13:00:00Z')); // Monday 09:00 EDT, after spring forward
  });

  it('local time: the called person is still asleep', () => {
    const r = explainDue(lead({ leadZones: ['America/Los_Angeles'] }), NOW); // 07:00 PDT
    expect(r.reasons).toEqual(['local time']);
    expect(r.nextDueAt).toEqual(d('2026-03-10T15:00:00Z')); // 08:00 PDT
  });

  it('local time must hold in every candidate zone', () => {
    const r = explainDue(lead({ leadZones: [NY, 'America/Chicago', 'America/Los_Angeles'] }), d('2026-03-10T14:30:00Z'));
    expect(r.reasons).toEqual(['local time']);
    expect(r.nextDueAt).toEqual(d('2026-03-10T15:00:00Z'));
  });

  it('no known zone falls back to the campaign timezone', () => {
    const campaign = { hours: parseHours('mon-sun 00:00-24:00'), timezone: 'Asia/Tokyo', localWindow: parseLocalWindow('08:00-21:00') };
    const r = explainDue(lead({ campaign, leadZones: [] }), NOW); // 23:00 in Tokyo
    expect(r.reasons).toEqual(['local time']);
    expect(r.nextDueAt).toEqual(d('2026-03-10T23:00:00Z')); // 08:00 JST
  });

  it('claimed by another worker until the claim expires', () => {
    const r = explainDue(lead({ claimedBy: 'w2', claimExpiresAt: d('2026-03-10T14:05:00Z') }), NOW);
    expect(r).toMatchObject({ due: false, reasons: ['claimed by another worker'], nextDueAt: d('2026-03-10T14:05:00Z') });
    const expired = explainDue(lead({ claimedBy: 'w2', claimExpiresAt: d('2026-03-10T13:55:00Z') }), NOW);
    expect(expired.due).toBe(true);
    const forever = explainDue(lead({ claimedBy: 'w2', claimExpiresAt: null }), NOW);
    expect(forever.reasons).toEqual(['claimed by another worker']);
  });

  it('reports every reason that applies, in a fixed order', () => {
    const r = explainDue(
      lead({
        status: 'exhausted',
        scheduledFor: d('2026-03-20T00:00:00Z'),
        claimedBy: 'w9',
        claimExpiresAt: d('2026-03-11T00:00:00Z'),
        leadZones: ['Asia/Tokyo'],
      }),
      d('2026-03-07T17:00:00Z'),
    );
    expect(r.reasons).toEqual(['attempts used up', 'scheduled later', 'outside hours', 'local time', 'claimed by another worker']);
    expect(r.nextDueAt).toBeNull();
  });

  it('nextDueAt iterates until campaign hours and every local window overlap', () => {
    // Campaign in New York 09:00-17:00; lead in Tokyo 08:00-21:00. Overlap: NY 19:00-07:00
    // would be needed, so with these hours only a campaign window in the NY evening works.
    const campaign = { hours: parseHours('mon-fri 18:00-23:00'), timezone: NY, localWindow: parseLocalWindow('08:00-21:00') };
    const r = explainDue(lead({ campaign, leadZones: ['Asia/Tokyo'] }), NOW);
    // Tue 19:00 EDT = Wed 08:00 JST = 2026-03-10T23:00Z.
    expect(r.nextDueAt).toEqual(d('2026-03-10T23:00:00Z'));
    expect(r.reasons).toEqual(['outside hours', 'local time']);
  });

  it('null when the windows never overlap or hours are never open', () => {
    const campaign = { hours: parseHours('mon-fri 09:00-17:00'), timezone: NY, localWindow: parseLocalWindow('08:00-21:00') };
    expect(explainDue(lead({ campaign, leadZones: ['Asia/Tokyo'] }), NOW).nextDueAt).toBeNull();
    const never = { ...campaign, hours: parseHours('never') };
    expect(explainDue(lead({ campaign: never }), NOW)).toMatchObject({ due: false, reasons: ['outside hours'], nextDueAt: null });
  });
});
