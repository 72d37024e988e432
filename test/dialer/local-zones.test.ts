/**
 * The called person's zones stored on the lead (src/dialer/local-zones.ts):
 * migration 0005 fills them for leads that existed before it, and the zone
 * sets open at an instant are those whose every zone is inside the window.
 */
import { Migrator } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/index.js';
import { createDb } from '../../src/db/index.js';
import { core } from '../../src/db/migrations/0001_core.js';
import { dialer } from '../../src/db/migrations/0002_dialer.js';
import { dashboard } from '../../src/db/migrations/0003_dashboard.js';
import { leadsAnalyze } from '../../src/db/migrations/0004_leads_analyze.js';
import { parseLocalWindow } from '../../src/dialer/hours.js';
import { openZoneSets, zonesOfSet } from '../../src/dialer/local-zones.js';
import { availableStores, createTestStore, type TestStore } from '../helpers/db.js';
import { leadRow, makeCampaign, seedLeads } from './support.js';

describe.each(await availableStores())('lead zones on %s', (kind) => {
  let store: TestStore;
  let db: Db;
  let ids: string[];
  beforeAll(async () => {
    store = await createTestStore(kind);
    // A database as it was before migration 0005, with leads in it.
    db = createDb(store.config);
    const d = db.dialect;
    const before = { '0001_core': core(d), '0002_dialer': dialer(d), '0003_dashboard': dashboard(d), '0004_leads_analyze': leadsAnalyze(d) };
    const { error } = await new Migrator({ db: db.kysely, provider: { getMigrations: async () => before } }).migrateToLatest();
    if (error) throw error;
    const c = await makeCampaign(db);
    ids = await seedLeads(db, c, [
      { phoneNumber: '+14155550100' }, // Los Angeles
      { phoneNumber: '+442079460100', metadata: { timezone: 'Asia/Tokyo' } },
      { phoneNumber: '+18005550100' }, // toll-free: every US/Canada zone
      { phoneNumber: null, externalId: 'prefetch' }, // unknown: the campaign's zone
      { phoneNumber: '+14155550101' },
    ]);
    await db.migrate();
  });
  afterAll(async () => {
    await db?.close();
    await store?.drop();
  });

  const zonesOf = async (id: string) => zonesOfSet(db, (await leadRow(db, id))!.local_zones!);

  it('migration 0005 works out the zones of the leads that existed before it', async () => {
    expect(await zonesOf(ids[0]!)).toEqual(['America/Los_Angeles']);
    expect(await zonesOf(ids[1]!)).toEqual(['Asia/Tokyo']);
    const nanp = await zonesOf(ids[2]!);
    expect(nanp).toEqual(expect.arrayContaining(['America/St_Johns', 'America/New_York', 'America/Los_Angeles', 'Pacific/Honolulu']));
    expect(await zonesOf(ids[3]!)).toEqual([]);
    // one zone set per distinct set of zones
    expect((await leadRow(db, ids[4]!))!.local_zones).toBe((await leadRow(db, ids[0]!))!.local_zones);
  });

  it('the open zone sets are those with every zone inside the window; the empty set follows the campaign zone', async () => {
    const window = parseLocalWindow('08:00-21:00');
    const idOf = async (i: number) => (await leadRow(db, ids[i]!))!.local_zones!;
    const [la, tokyo, nanp, unknown] = [await idOf(0), await idOf(1), await idOf(2), await idOf(3)];
    // 2026-03-10 18:00Z: 11:00 in Los Angeles, 03:00 in Tokyo, 08:00 in Honolulu, 18:00 UTC
    let open = await openZoneSets(db, window, '08:00-21:00', 'UTC', Date.parse('2026-03-10T18:00:00Z'));
    expect([la, nanp, unknown].every((id) => open.includes(id))).toBe(true);
    expect(open).not.toContain(tokyo);
    // a minute earlier it is 07:59 in Honolulu
    open = await openZoneSets(db, window, '08:00-21:00', 'UTC', Date.parse('2026-03-10T17:59:59Z'));
    expect(open).toContain(la);
    expect(open).not.toContain(nanp);
    // the campaign's zone decides for the unknown set: 03:00 in Tokyo
    open = await openZoneSets(db, window, '08:00-21:00', 'Asia/Tokyo', Date.parse('2026-03-10T18:00:00Z'));
    expect(open).not.toContain(unknown);
  });
});
