import { describe, expect, it } from 'vitest';
import {
  ALLOWED_MOVES,
  LEAD_STATUSES,
  LIFECYCLE_EVENTS,
  LifecycleError,
  canMove,
  nextStatus,
  type LeadStatus,
  type LifecycleEvent,
} from '../../src/leads/lifecycle.js';

// The expected table, written out independently of ALLOWED_MOVES.
const EXPECTED: Record<LeadStatus, Partial<Record<LifecycleEvent, LeadStatus | 'depends' | 'undoes the claim'>>> = {
  raw: { claim: 'attempting' },
  attempting: { claim: 'attempting', fail: 'depends', succeed: 'concluded', release: 'undoes the claim' },
  exhausted: { recycle: 'attempting' },
  concluded: {},
};

describe('lifecycle', () => {
  describe.each(LEAD_STATUSES.flatMap((from) => LIFECYCLE_EVENTS.map((event) => [from, event] as const)))('%s + %s', (from, event) => {
    const expected = EXPECTED[from][event];
    if (expected === undefined) {
      it('is refused with LifecycleError', () => {
        expect(canMove(from, event)).toBe(false);
        const ctx = { attempts: 1, maxAttempts: 3 };
        expect(() => nextStatus(from, event, ctx)).toThrow(LifecycleError);
        expect(() => nextStatus(from, event, ctx)).toThrow(`cannot ${event} a lead that is ${from}`);
      });
    } else if (expected === 'undoes the claim') {
      it('gives back the status the claim found: raw or attempting', () => {
        expect(canMove(from, event)).toBe(true);
        expect(nextStatus(from, event, { claimedFrom: 'raw' })).toBe('raw');
        expect(nextStatus(from, event, { claimedFrom: 'attempting' })).toBe('attempting');
        // a claim never finds a lead exhausted or concluded
        expect(() => nextStatus(from, event, { claimedFrom: 'exhausted' })).toThrow(LifecycleError);
        expect(() => nextStatus(from, event, { claimedFrom: 'concluded' })).toThrow(LifecycleError);
        expect(() => nextStatus(from, event)).toThrow(TypeError);
      });
    } else if (expected === 'depends') {
      it('stays attempting with attempts left and exhausts at the max', () => {
        expect(nextStatus(from, event, { attempts: 1, maxAttempts: 3 })).toBe('attempting');
        expect(nextStatus(from, event, { attempts: 2, maxAttempts: 3 })).toBe('attempting');
        expect(nextStatus(from, event, { attempts: 3, maxAttempts: 3 })).toBe('exhausted');
        expect(nextStatus(from, event, { attempts: 4, maxAttempts: 3 })).toBe('exhausted');
        expect(nextStatus(from, event, { attempts: 1, maxAttempts: 1 })).toBe('exhausted');
      });
    } else {
      it(`moves to ${expected}`, () => {
        expect(canMove(from, event)).toBe(true);
        expect(nextStatus(from, event)).toBe(expected);
      });
    }
  });

  it('the exported table matches exactly the allowed pairs', () => {
    const fromTable = ALLOWED_MOVES.map((m) => `${m.from} ${m.event} ${m.to}`).sort();
    const expected = Object.entries(EXPECTED)
      .flatMap(([from, evs]) =>
        Object.entries(evs).flatMap(([ev, to]) =>
          to === 'depends'
            ? [`${from} ${ev} attempting`, `${from} ${ev} exhausted`]
            : to === 'undoes the claim'
              ? [`${from} ${ev} raw`, `${from} ${ev} attempting`]
              : [`${from} ${ev} ${to}`],
        ),
      )
      .sort();
    expect(fromTable).toEqual(expected);
    expect(Object.isFrozen(ALLOWED_MOVES)).toBe(true);
  });

  it('fail needs attempt counts', () => {
    expect(() => nextStatus('attempting', 'fail')).toThrow(TypeError);
    expect(() => nextStatus('attempting', 'fail', { attempts: 0, maxAttempts: 3 })).toThrow(RangeError);
    expect(() => nextStatus('attempting', 'fail', { attempts: 1.5, maxAttempts: 3 })).toThrow(RangeError);
  });

  it('a lead runs raw -> attempting -> exhausted -> (recycle) -> attempting -> concluded', () => {
    const max = 2;
    let s: LeadStatus = 'raw';
    let attempts = 0;
    s = nextStatus(s, 'claim');
    s = nextStatus(s, 'fail', { attempts: ++attempts, maxAttempts: max });
    expect(s).toBe('attempting');
    s = nextStatus(s, 'claim');
    s = nextStatus(s, 'fail', { attempts: ++attempts, maxAttempts: max });
    expect(s).toBe('exhausted');
    expect(() => nextStatus(s, 'claim')).toThrow(LifecycleError);
    s = nextStatus(s, 'recycle');
    expect(s).toBe('attempting');
    s = nextStatus(s, 'succeed');
    expect(s).toBe('concluded');
    for (const ev of LIFECYCLE_EVENTS) expect(() => nextStatus(s, ev, { attempts: 1, maxAttempts: 5 })).toThrow(LifecycleError);
  });

  it('LifecycleError carries from and event', () => {
    try {
      nextStatus('concluded', 'recycle');
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(LifecycleError);
      expect((e as LifecycleError).from).toBe('concluded');
      expect((e as LifecycleError).event).toBe('recycle');
      expect((e as Error).name).toBe('LifecycleError');
    }
  });
});
