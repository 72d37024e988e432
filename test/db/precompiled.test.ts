/**
 * precompiled() compiles a statement once and rebinds its arguments; it must
 * refuse a statement that uses an argument in any way other than as a whole
 * bound value, since the rebinding would then run the first call's value.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { precompiled } from '../../src/db/precompiled.js';
import type { Store } from '../../src/store/index.js';
import { createTestStore, type TestStore } from '../helpers/db.js';

describe('precompiled statements', () => {
  let store: TestStore;
  let db: Store;
  beforeAll(async () => {
    store = await createTestStore('sqlite');
    db = await store.open();
  });
  afterAll(async () => {
    await db?.close();
    await store?.drop();
  });

  it('rebind each call’s arguments into the text compiled once', async () => {
    const echo = precompiled((a: { x: string; n: number }, ex) =>
      sql<{ x: string; n: number }>`select ${a.x} as x, ${a.n} as n`.compile(ex),
    );
    expect((await echo(db.kysely, { x: 'first', n: 1 })).rows).toEqual([{ x: 'first', n: 1 }]);
    expect((await echo(db.kysely, { x: 'second', n: 2 })).rows).toEqual([{ x: 'second', n: 2 }]);
  });

  it('refuse an argument that is not bound as a whole value', () => {
    const concatenated = precompiled((a: { name: string }, ex) => sql`select ${`prefix-${a.name}`} as v`.compile(ex));
    expect(() => concatenated(db.kysely, { name: 'x' })).toThrow(/not bound as a whole value/);
  });

  it('refuse an argument that ended up in the SQL text', () => {
    const literal = precompiled((a: { name: string }, ex) => sql`select ${sql.lit(a.name)} as v`.compile(ex));
    expect(() => literal(db.kysely, { name: 'x' })).toThrow(/ended up in the SQL text/);
  });
});
