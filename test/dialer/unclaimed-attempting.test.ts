/**
 * Migration 0007: leads an earlier version left `attempting` with no attempt
 * made and no claim held go back to `raw`; every other lead is untouched.
 */
import { Migrator, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/store/index.js';
import { migrations } from '../../src/db/migrations.js';
import { availableStores, createTestStore, type TestStore } from '../helpers/db.js';
import { leadRow, oldSchemaCampaign, seedLeads } from './support.js';

describe.each(await availableStores())('migration 0007 on %s', (kind) => {
  let store: TestStore;
  let db: Store;
  let ids: string[];
  beforeAll(async () => {
    store = await createTestStore(kind);
    db = openStore(store.config);
    // The database as it was before 0007, with leads in the states earlier versions left.
    const provider = { getMigrations: async () => migrations(db.dialect) };
    const { error } = await new Migrator({ db: db.kysely, provider }).migrateTo('0006_simulate_settings');
    if (error) throw error;
    const c = await oldSchemaCampaign(db);
    ids = await seedLeads(db, c, [{}, {}, {}, {}, {}, {}]);
    const set = (i: number, values: string) => sql.raw(`update leads set ${values} where id = '${ids[i]}'`).execute(db.kysely);
    await set(0, `status = 'attempting', next_attempt_at = '2026-01-01T14:00:00.000Z'`); // deferred by an old version
    await set(1, `status = 'attempting'`); // released at shutdown by an old version
    await set(2, `status = 'attempting', claimed_by = 'w1', claimed_at = 1, next_attempt_at = '2099-01-01T00:00:00.000Z'`); // in a call now
    await set(3, `status = 'attempting', attempts = 1, next_attempt_at = '2026-01-01T14:00:00.000Z'`); // waiting for its retry
    await set(4, `status = 'exhausted', attempts = 3`);
    // ids[5] stays raw
    await db.migrate();
  });
  afterAll(async () => {
    await db?.close();
    await store?.drop();
  });

  const state = async (i: number) => {
    const r = (await leadRow(db, ids[i]!))!;
    return [r.status, r.attempts, r.claimed_by, r.next_attempt_at];
  };

  it('moves unclaimed attempting leads with no attempts back to raw, due again', async () => {
    expect(await state(0)).toEqual(['raw', 0, null, null]);
    expect(await state(1)).toEqual(['raw', 0, null, null]);
  });

  it('leaves a claimed lead, a lead with attempts, an exhausted and a raw lead alone', async () => {
    expect(await state(2)).toEqual(['attempting', 0, 'w1', '2099-01-01T00:00:00.000Z']);
    expect(await state(3)).toEqual(['attempting', 1, null, '2026-01-01T14:00:00.000Z']);
    expect(await state(4)).toEqual(['exhausted', 3, null, null]);
    expect(await state(5)).toEqual(['raw', 0, null, null]);
  });
});
