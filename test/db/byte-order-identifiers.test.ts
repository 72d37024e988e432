/**
 * Migration 0021 (PostgreSQL): the unique identifier indexes compare bytes
 * (text_pattern_ops) and serve the search's starts, in place of 0018's two
 * `_start` indexes. Run on a database whose collation is not byte order
 * (ICU en-US: "a" sorts before "B"), migrated from 0020 with leads in it,
 * by a store whose statement timeout (5 ms) is far shorter than the index
 * builds: migrations run without it (src/db/postgres.ts, migrateUntimed).
 */
import { Migrator, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrations } from '../../src/db/migrations.js';
import { openStore, type Store } from '../../src/store/index.js';
import { oldSchemaCampaign, seedLeads } from '../dialer/support.js';
import { availableStores, createTestStore, type TestStore } from '../helpers/db.js';

describe.skipIf(!(await availableStores()).includes('postgres'))('migration 0021 on postgres, ICU en-US collation', () => {
  let store: TestStore;
  let db: Store;
  let campaign: string;
  beforeAll(async () => {
    store = await createTestStore('postgres', `template template0 locale_provider icu icu_locale 'en-US'`);
    db = openStore(store.config);
    const provider = { getMigrations: async () => migrations(db.dialect) };
    const { error } = await new Migrator({ db: db.kysely, provider }).migrateTo('0020_one_provider_call_index');
    if (error) throw error;
    campaign = await oldSchemaCampaign(db);
    await seedLeads(db, campaign, [
      { phoneNumber: '+14155550100', externalId: 'Bx' },
      { phoneNumber: '+14155550101', externalId: 'b2' },
      { phoneNumber: '+14155550102', externalId: 'c3' },
      { phoneNumber: '+14165550103', externalId: 'B' },
      { phoneNumber: '+14155550104' },
    ]);
    await sql`insert into leads (id, campaign_id, phone_number, created_at)
      select 'ld_many_' || i, ${campaign}, '+1212' || lpad(i::text, 7, '0'), 0 from generate_series(1, 30000) i`.execute(db.kysely);
    await db.close();
    const migrating = openStore(store.config, { pgStatementTimeoutMs: 5 });
    try {
      await migrating.migrate();
    } finally {
      await migrating.close();
    }
    db = openStore(store.config);
  });
  afterAll(async () => {
    await db?.close();
    await store?.drop();
  });

  it('leaves eleven indexes on leads: the unique identifiers by bytes, no _start', async () => {
    const { rows } = await sql<{ name: string; def: string }>`
      select indexname as name, indexdef as def from pg_indexes where tablename = 'leads' order by indexname`.execute(db.kysely);
    expect(rows.map((r) => r.name)).toEqual([
      'leads_campaign_external_id',
      'leads_campaign_phone_number',
      'leads_campaign_seq',
      'leads_campaign_status_seq',
      'leads_claimed',
      'leads_due',
      'leads_external_end',
      'leads_id_key',
      'leads_phone_end',
      'leads_pkey',
      'leads_zones_unknown',
    ]);
    for (const column of ['phone_number', 'external_id']) {
      const def = rows.find((r) => r.name === `leads_campaign_${column}`)!.def;
      expect(def).toContain(`UNIQUE INDEX`);
      expect(def).toContain(`(campaign_id, ${column} text_pattern_ops)`);
    }
  });

  it('finds by start in byte order, whatever the collation: "B" is not "b", and "c" is not between "B" and "C"', async () => {
    const found = await db.leads.search(campaign, 'B', 50);
    expect(found.leads.map((l) => l.external_id).sort()).toEqual(['B', 'Bx']);
    expect((await db.leads.search(campaign, '+1416', 50)).leads.map((l) => l.phone_number)).toEqual(['+14165550103']);
    // (test/leads/search.test.ts reads the plans, on a campaign large enough to want an index)
  });

  it('still refuses a second lead with the same number or externalId, and on conflict still finds the index', async () => {
    const row = (phone: string, ext: string | null) => sql`(${`ld_dup_${phone}`}, ${campaign}, ${phone}, ${ext}, 0)`;
    const insert = (values: ReturnType<typeof row>) =>
      sql`insert into leads (id, campaign_id, phone_number, external_id, created_at) values ${values}`.execute(db.kysely);
    await expect(insert(row('+14155550100', null))).rejects.toMatchObject({ code: '23505' });
    await expect(insert(row('+14155559999', 'Bx'))).rejects.toMatchObject({ code: '23505' });
    const skipped = await sql`insert into leads (id, campaign_id, phone_number, external_id, created_at)
      values (${'ld_dup_x'}, ${campaign}, ${'+14155550101'}, ${null}, 0)
      on conflict (campaign_id, phone_number) do nothing returning id`.execute(db.kysely);
    expect(skipped.rows).toEqual([]);
  });
});
