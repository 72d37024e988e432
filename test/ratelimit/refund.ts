/**
 * What a refund must do, on any RateLimiter driven by a settable clock (memory
 * and Redis run the same checks). Time only moves forward, as the memory
 * limiter requires.
 */
import { expect } from 'vitest';
import type { RateLimiter, Window } from '../../src/ratelimit/types.js';

export async function checkRefunds(limiter: RateLimiter, clock: { t: number }, prefix: string): Promise<void> {
  const base = clock.t;
  const at = (dt: number, key: string, windows: readonly Window[]) => {
    clock.t = base + dt;
    return limiter.hit(`${prefix}${key}`, windows);
  };
  const refund = (key: string, windows: readonly Window[], ticket: string | undefined) => {
    expect(ticket).toEqual(expect.any(String));
    return limiter.refund(`${prefix}${key}`, windows, ticket!);
  };

  // A refunded hit gives its place back in every window of the key.
  const two = [
    { name: 'burst', limit: 2, windowMs: 1000 },
    { name: 'long', limit: 3, windowMs: 10_000 },
  ];
  await at(0, 'every', two);
  const b = await at(10, 'every', two);
  await refund('every', two, b.ticket);
  expect(await at(20, 'every', two)).toMatchObject({ allowed: true, limit: 2, remaining: 0 });
  expect((await at(30, 'every', two)).allowed).toBe(false);
  // Once the first hit leaves the burst window, the long one has room only because b was taken back.
  expect(await at(1000, 'every', two)).toMatchObject({ allowed: true, limit: 3, remaining: 0 });

  // Refunding the same hit twice takes back one hit, not two.
  const one = [{ name: 's', limit: 2, windowMs: 1000 }];
  await at(20_000, 'twice', one);
  const second = await at(20_001, 'twice', one);
  await refund('twice', one, second.ticket);
  await refund('twice', one, second.ticket);
  expect((await at(20_002, 'twice', one)).allowed).toBe(true);
  expect((await at(20_003, 'twice', one)).allowed).toBe(false);

  // A hit that has already left its window takes nothing from newer ones.
  const short = [{ name: 's', limit: 1, windowMs: 100 }];
  const old = await at(40_000, 'gone', short);
  expect((await at(40_100, 'gone', short)).allowed).toBe(true);
  await refund('gone', short, old.ticket);
  expect((await at(40_150, 'gone', short)).allowed).toBe(false);

  // A refused hit has nothing to refund.
  expect((await at(40_160, 'gone', short)).ticket).toBeUndefined();
}
