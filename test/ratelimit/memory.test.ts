import { describe, expect, it } from 'vitest';
import { MemoryRateLimiter } from '../../src/ratelimit/memory.js';
import type { Window } from '../../src/ratelimit/types.js';
import { checkSlidingWindowProperty } from './model.js';
import { checkRefunds } from './refund.js';

function setup() {
  const clock = { t: 0 };
  const limiter = new MemoryRateLimiter({ now: () => clock.t });
  const at = (t: number, windows: readonly Window[], key = 'k') => {
    clock.t = t;
    return limiter.hit(key, windows);
  };
  return { clock, limiter, at };
}

describe('MemoryRateLimiter', () => {
  it('never admits more than limit in any window and matches the reference model', async () => {
    const { clock, limiter } = setup();
    await checkSlidingWindowProperty(limiter, clock, { unitMs: 1, minWindowUnits: 1, maxWindowUnits: 50, maxAdvanceUnits: 20 }, 500);
  });

  it('counts remaining down and admits a retry exactly at resetAt', async () => {
    const { at } = setup();
    const w = [{ name: 's', limit: 3, windowMs: 1000 }];
    expect(await at(0, w)).toEqual({ allowed: true, limit: 3, remaining: 2, resetAt: 1000, ticket: '0' });
    expect(await at(100, w)).toEqual({ allowed: true, limit: 3, remaining: 1, resetAt: 1000, ticket: '100' });
    expect(await at(200, w)).toEqual({ allowed: true, limit: 3, remaining: 0, resetAt: 1000, ticket: '200' });
    expect(await at(300, w)).toEqual({ allowed: false, limit: 3, remaining: 0, resetAt: 1000 });
    expect(await at(999, w)).toEqual({ allowed: false, limit: 3, remaining: 0, resetAt: 1000 });
    expect(await at(1000, w)).toEqual({ allowed: true, limit: 3, remaining: 0, resetAt: 1100, ticket: '1000' });
  });

  it('does not count refused requests', async () => {
    const { at } = setup();
    const w = [{ name: 's', limit: 2, windowMs: 1000 }];
    await at(0, w);
    await at(1, w);
    for (let i = 0; i < 50; i++) expect((await at(500, w)).allowed).toBe(false);
    expect(await at(1000, w)).toMatchObject({ allowed: true, remaining: 0 });
    expect(await at(1001, w)).toMatchObject({ allowed: true, remaining: 0, resetAt: 2000 });
  });

  it('describes the full window that frees up last when refusing', async () => {
    const { at } = setup();
    const w = [
      { name: 'burst', limit: 1, windowMs: 1000 },
      { name: 'long', limit: 2, windowMs: 5000 },
    ];
    expect(await at(0, w)).toEqual({ allowed: true, limit: 1, remaining: 0, resetAt: 1000, ticket: '0' });
    // Both windows now have 0 left; the later reset wins the tie.
    expect(await at(1000, w)).toEqual({ allowed: true, limit: 2, remaining: 0, resetAt: 5000, ticket: '1000' });
    expect(await at(1500, w)).toEqual({ allowed: false, limit: 2, remaining: 0, resetAt: 5000 });
    expect((await at(4999, w)).allowed).toBe(false);
    expect((await at(5000, w)).allowed).toBe(true);
  });

  it('refuses everything with a limit of 0', async () => {
    const { at } = setup();
    const w = [
      { name: 'off', limit: 0, windowMs: 60_000 },
      { name: 's', limit: 5, windowMs: 1000 },
    ];
    expect(await at(10, w)).toEqual({ allowed: false, limit: 0, remaining: 0, resetAt: 60_010 });
    expect(await at(20, w)).toEqual({ allowed: false, limit: 0, remaining: 0, resetAt: 60_020 });
  });

  it('keeps enforcing after the limit of a key is lowered', async () => {
    const { at } = setup();
    for (let t = 0; t < 5; t++) await at(t, [{ name: 's', limit: 5, windowMs: 1000 }]);
    const lowered = [{ name: 's', limit: 2, windowMs: 1000 }];
    // Room for one more once 4 of the 5 have left: when the one at t=3 does.
    expect(await at(10, lowered)).toEqual({ allowed: false, limit: 2, remaining: 0, resetAt: 1003 });
    expect((await at(1002, lowered)).allowed).toBe(false);
    expect((await at(1003, lowered)).allowed).toBe(true);
  });

  it('refunds a hit in every window, once, and never one that has left its window', async () => {
    const { clock, limiter } = setup();
    await checkRefunds(limiter, clock, '');
  });

  it('a refund among hits stamped the same millisecond takes back exactly one', async () => {
    const { limiter, at } = setup();
    const w = [{ name: 's', limit: 3, windowMs: 1000 }];
    const [first] = [await at(5, w), await at(5, w), await at(5, w)];
    await limiter.refund('k', w, first!.ticket!);
    expect(await at(6, w)).toMatchObject({ allowed: true, remaining: 0 });
    expect((await at(7, w)).allowed).toBe(false);
  });

  it('rejects invalid windows', async () => {
    const { at } = setup();
    await expect(at(0, [])).rejects.toThrow(RangeError);
    await expect(at(0, [{ name: 'a', limit: 1, windowMs: 0 }])).rejects.toThrow(RangeError);
    await expect(at(0, [{ name: 'a', limit: -1, windowMs: 10 }])).rejects.toThrow(RangeError);
    await expect(at(0, [{ name: 'a:b', limit: 1, windowMs: 10 }])).rejects.toThrow(RangeError);
    const dup = { name: 'a', limit: 1, windowMs: 10 };
    await expect(at(0, [dup, dup])).rejects.toThrow(RangeError);
  });

  it('sweeps idle buckets on demand', async () => {
    const { clock, limiter, at } = setup();
    const w = [
      { name: 's', limit: 1, windowMs: 1000 },
      { name: 'm', limit: 5, windowMs: 2000 },
    ];
    for (let i = 0; i < 100; i++) await at(0, w, `k${i}`);
    expect(limiter.size).toBe(200);
    clock.t = 1000;
    limiter.sweep();
    expect(limiter.size).toBe(100);
    clock.t = 2000;
    limiter.sweep();
    expect(limiter.size).toBe(0);
  });

  it('sweeps idle buckets as traffic flows, even when every hit has a new key', async () => {
    const { limiter, at } = setup();
    const w = [{ name: 's', limit: 1, windowMs: 1000 }];
    for (let i = 0; i < 2000; i++) await at(0, w, `old${i}`);
    for (let i = 0; i < 1100; i++) await at(1000, w, `new${i}`);
    // Only the 1100 live buckets are left; the 2000 idle ones were swept.
    expect(limiter.size).toBe(1100);
    await limiter.close();
    expect(limiter.size).toBe(0);
  });
});
