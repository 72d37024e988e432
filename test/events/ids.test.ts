/**
 * Event ids (src/events/ids.ts): opaque, the same for the same event under
 * the same database key (every instance, every read, every webhook try),
 * different for every event, and different under another database's key.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { EventIds } from '../../src/events/ids.js';

describe('event ids', () => {
  const key = randomBytes(32);
  const ids = new EventIds(key);

  it('are evt_ and 22 base64url characters, the same from every instance on the database', () => {
    const again = new EventIds(Buffer.from(key));
    for (const [row, index] of [
      [1, 0],
      [12_345, 7],
      [2 ** 40, 999],
      [Number.MAX_SAFE_INTEGER, 2 ** 32 - 1],
    ] as const) {
      const id = ids.of(row, index);
      expect(id).toMatch(/^evt_[A-Za-z0-9_-]{22}$/);
      expect(again.of(row, index)).toBe(id);
      // a row id of five digits or more does not show (one digit may turn up by chance: 22 random characters)
      if (row >= 10_000) expect(id).not.toContain(String(row));
    }
  });

  it('differ for every row and item, and under another key', () => {
    const seen = new Set<string>();
    for (let row = 1; row <= 200; row++) for (let index = 0; index < 20; index++) seen.add(ids.of(row, index));
    expect(seen.size).toBe(200 * 20);
    // pairs whose digits run together (1|10, 11|0): the input is fixed-width, not text
    expect(ids.of(1, 10)).not.toBe(ids.of(11, 0));
    expect(new EventIds(randomBytes(32)).of(1, 0)).not.toBe(ids.of(1, 0));
  });
});
