/**
 * A platform's webhook finds its attempt by the platform's call id through the
 * partial index of the attempts that have one (migration 0020 dropped the full
 * index that also held every attempt without one), on both stores.
 */
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/index.js';
import { availableStores, useStore } from '../helpers/db.js';

describe.each(await availableStores())('the provider call id lookup on %s', (kind) => {
  let db: Store;
  useStore(kind, (opened) => {
    db = opened;
  });

  it('reads the partial index attempts_provider_call, the only index of the column', async () => {
    const rows = Array.from({ length: 2000 }, (_, i) => ({
      lead_id: `ld_${i}`,
      campaign_id: 'cp_x',
      company_id: 'co_x',
      attempt: 1,
      started_at: i,
      success: 0,
      worker: 'w',
      attempt_id: `at_${i}`,
      provider_call_id: i % 100 === 0 ? `call-${i}` : null,
      state: 'closed' as const,
      counts: 1,
    }));
    for (let i = 0; i < rows.length; i += 250)
      await db.kysely
        .insertInto('attempts')
        .values(rows.slice(i, i + 250))
        .execute();
    await sql`analyze attempts`.execute(db.kysely);

    const indexes =
      kind === 'postgres'
        ? (await sql<{ name: string }>`select indexname as name from pg_indexes where tablename = 'attempts'`.execute(db.kysely)).rows
        : (await sql<{ name: string }>`select name from pragma_index_list('attempts')`.execute(db.kysely)).rows;
    expect(indexes.map((r) => r.name).filter((n) => n.includes('provider_call'))).toEqual(['attempts_provider_call']);

    const lookup = sql`select attempt_id from attempts where provider_call_id = ${'call-700'}`;
    const plan =
      kind === 'postgres'
        ? (await sql<{ 'QUERY PLAN': string }>`explain ${lookup}`.execute(db.kysely)).rows.map((r) => r['QUERY PLAN']).join('\n')
        : (await sql<{ detail: string }>`explain query plan ${lookup}`.execute(db.kysely)).rows.map((r) => r.detail).join('\n');
    expect(plan).toMatch(/attempts_provider_call\b/);
    expect((await lookup.execute(db.kysely)).rows).toEqual([{ attempt_id: 'at_700' }]);
  });
});
