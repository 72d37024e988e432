/**
 * The events cursor (src/events/cursor.ts): every position comes back from its
 * cursor; a cursor leadline did not write under this database's key is
 * malformed, including one made of two real cursors' blocks and one of the
 * form before (e1.), no longer read.
 */
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EventCursors } from '../../src/events/cursor.js';

const cursors = new EventCursors(randomBytes(32));
const position = fc.record({
  tx: fc.maxSafeNat(),
  id: fc.maxSafeNat(),
  n: fc.nat({ max: 2 ** 32 - 1 }),
});

describe('events cursors', () => {
  it('give back every position, in 43 characters that do not show it', () => {
    fc.assert(
      fc.property(position, (p) => {
        const c = cursors.encode(p);
        expect(c).toMatch(/^[A-Za-z0-9_-]{43}$/);
        expect(cursors.decode(c)).toEqual(p);
      }),
    );
  });

  it("refuse a cursor changed in any character, one of another database's key, and blocks of two cursors put together", () => {
    const p = { tx: 900, id: 12_345, n: 7 };
    const c = cursors.encode(p);
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    for (let i = 0; i < c.length; i++) {
      const other = alphabet[(alphabet.indexOf(c[i]!) + 1) % 64]!;
      expect(cursors.decode(c.slice(0, i) + other + c.slice(i + 1)), `character ${i}`).toBeNull();
    }
    expect(new EventCursors(randomBytes(32)).decode(c)).toBeNull();
    const a = Buffer.from(cursors.encode({ tx: 1, id: 2, n: 3 }), 'base64url');
    const b = Buffer.from(cursors.encode({ tx: 4, id: 5, n: 3 }), 'base64url');
    expect(cursors.decode(Buffer.concat([a.subarray(0, 16), b.subarray(16)]).toString('base64url'))).toBeNull();
    expect(cursors.decode(Buffer.concat([b.subarray(0, 16), a.subarray(16)]).toString('base64url'))).toBeNull();
    for (const bad of ['', 'AAAA', c.slice(0, -1), `${c}A`, 'x'.repeat(5000)]) expect(cursors.decode(bad)).toBeNull();
  });

  it('refuse the form before (base64url of e1. and tx, id, n in base 36): anyone could write one', () => {
    const v1 = (text: string) => Buffer.from(text).toString('base64url');
    const n32 = (2 ** 32).toString(36);
    for (const old of ['e1.0.0.0', `e1.${(900).toString(36)}.${(12_345).toString(36)}.7`, `e1.0.0.${n32}`, 'e1.-1.0.0']) {
      expect(cursors.decode(v1(old)), old).toBeNull();
    }
  });
});
