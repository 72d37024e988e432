/**
 * The called person's zones stored on the lead (src/dialer/local-zones.ts):
 * leads that existed before migration 0005 get them as the dialer fills them, and the zone
 * sets open at an instant are those whose every zone is inside the window.
 */
import { Migrator } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/index.js';
import { openStore } from '../../src/store/index.js';
import { core } from '../../src/db/migrations/0001_core.js';
import { dialer } from '../../src/db/migrations/0002_dialer.js';
import { dashboard } from '../../src/db/migrations/0003_dashboard.js';
import { leadsAnalyze } from '../../src/db/migrations/0004_leads_analyze.js';
import { parseLocalWindow } from '../../src/scheduling/hours.js';
import { fillCampaignZones, openZoneSets, zonesOfSet } from '../../src/dialer/local-zones.js';
import { availableStores, createTestStore, type TestStore } from '../helpers/db.js';
import { leadRow, oldSchemaCampaign, seedLeads } from './support.js';

describe.each(await availableStores())('lead zones on %s', (kind) => {
  let store: TestStore;
  let db: Store;
  let ids: string[];
  beforeAll(async () => {
    store = await createTestStore(kind);
    // A database as it was before migration 0005, with leads in it.
    db = openStore(store.config);
    const d = db.dialect;
    const before = {
      '0001_core': core(d),
      '0002_dialer': dialer(d),
      '0003_dashboard': dashboard(d),
      '0004_leads_analyze': leadsAnalyze(d),
    };
    const { error } = await new Migrator({ db: db.kysely, provider: { getMigrations: async () => before } }).migrateToLatest();
    if (error) throw error;
    const c = await oldSchemaCampaign(db);
    ids = await seedLeads(db, c, [
      { phoneNumber: '+14155550100' }, // Los Angeles
      { phoneNumber: '+442079460100', metadata: { timezone: 'Asia/Tokyo' } },
      { phoneNumber: '+18005550100' }, // toll-free: every US/Canada zone
      { phoneNumber: null, externalId: 'prefetch' }, // unknown: the campaign's zone
      { phoneNumber: '+14155550101' },
    ]);
    await db.migrate();
    // migration 0005 leaves them unknown; the dialer works them out before it claims
    await fillCampaignZones(db, c);
  });
  afterAll(async () => {
    await db?.close();
    await store?.drop();
  });

  const zonesOf = async (id: string) => zonesOfSet(db, (await leadRow(db, id))!.local_zones!);

  it('the zones of the leads that existed before migration 0005 are worked out as the dialer fills them', async () => {
    expect(await zonesOf(ids[0]!)).toEqual(['America/Los_Angeles']);
    // metadata.timezone narrows the number's zone: both must be open
    expect(await zonesOf(ids[1]!)).toEqual(['Asia/Tokyo', 'Europe/London']);
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
