/**
 * Migration 0008: leads whose area code's zones changed when the table was
 * checked against the states (689 Orlando was on Chicago's clock) forget their
 * stored zones, and the dialer works them out again from the corrected table.
 */
import { Migrator, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrations } from '../../src/db/migrations.js';
import { fillCampaignZones, zonesOfSet } from '../../src/dialer/local-zones.js';
import { openStore, type Store } from '../../src/store/index.js';
import { leadRow, oldSchemaCampaign, seedLeads } from '../dialer/support.js';
import { availableStores, createTestStore, type TestStore } from '../helpers/db.js';

describe.each(await availableStores())('migration 0008 on %s', (kind) => {
  let store: TestStore;
  let db: Store;
  let orlando: string;
  let sanFrancisco: string;
  let campaign: string;
  beforeAll(async () => {
    store = await createTestStore(kind);
    db = openStore(store.config);
    const provider = { getMigrations: async () => migrations(db.dialect) };
    const { error } = await new Migrator({ db: db.kysely, provider }).migrateTo('0007_unclaimed_attempting');
    if (error) throw error;
    campaign = await oldSchemaCampaign(db);
    const ids0 = await seedLeads(db, campaign, [{ phoneNumber: '+16895550100' }, { phoneNumber: '+14155550100' }]);
    orlando = ids0[0]!;
    sanFrancisco = ids0[1]!;
    // as an earlier version stored them: 689 on Chicago's clock
    const ids = await db.zones.ids(['America/Chicago', 'America/Los_Angeles']);
    await sql`update leads set local_zones = ${ids.get('America/Chicago')!} where id = ${orlando}`.execute(db.kysely);
    await sql`update leads set local_zones = ${ids.get('America/Los_Angeles')!} where id = ${sanFrancisco}`.execute(db.kysely);
    await db.migrate();
  });
  afterAll(async () => {
    await db?.close();
    await store?.drop();
  });

  it('forgets the zones of leads whose area code changed, and only theirs', async () => {
    expect((await leadRow(db, orlando))!.local_zones).toBeNull();
    expect(await zonesOfSet(db, (await leadRow(db, sanFrancisco))!.local_zones!)).toEqual(['America/Los_Angeles']);
  });

  it('the dialer then works out Eastern time for 689', async () => {
    await fillCampaignZones(db, campaign);
    expect(await zonesOfSet(db, (await leadRow(db, orlando))!.local_zones!)).toEqual(['America/New_York']);
  });
});
