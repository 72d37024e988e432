/**
 * The dashboard's lead search (LeadStore.search): by the start or the end of
 * a phone number or an externalId, in one campaign, limited, each way an
 * index range on both databases (migration 0018).
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/index.js';
import { nextPrefix } from '../../src/store/shared/lead-search.js';
import { availableStores, createTestStore, type TestStore } from '../helpers/db.js';
import { makeCampaign, seedLeads } from '../dialer/support.js';

describe('nextPrefix', () => {
  it('is the least text past every text with the prefix, in code point order', () => {
    expect(nextPrefix('+1415')).toBe('+1416');
    expect(nextPrefix('crm-9')).toBe('crm-:');
    expect(nextPrefix('a\u{10ffff}')).toBe('b');
    expect(nextPrefix('\u{10ffff}\u{10ffff}')).toBeNull();
    // UTF-8 holds no surrogates: the next code point after U+D7FF is U+E000
    expect(nextPrefix('x\ud7ff')).toBe('x\ue000');
    expect(nextPrefix('😀')).toBe('😁');
  });
});

describe.each(await availableStores())('lead search on %s', (kind) => {
  let store: TestStore;
  let db: Store;
  let campaignId: string;
  let other: string;
  const numbers = (r: { leads: { phone_number: string | null }[] }) => r.leads.map((l) => l.phone_number);
  const ids = (r: { leads: { external_id: string | null }[] }) => r.leads.map((l) => l.external_id);
  beforeAll(async () => {
    store = await createTestStore(kind);
    db = await store.open();
    campaignId = await makeCampaign(db);
    other = await makeCampaign(db);
    await seedLeads(db, campaignId, [
      { phoneNumber: '+14155550123', externalId: 'crm-42' },
      { phoneNumber: '+14155554567', externalId: 'CRM-43' },
      { phoneNumber: '+12125554567', externalId: 'a%b_c' },
      { phoneNumber: '+14150000001', externalId: 'axbyc' },
      { phoneNumber: null, externalId: 'ücrm-😀' },
      { phoneNumber: '+1415', externalId: null },
    ]);
    // the same numbers and ids in another campaign (of another company) are never found
    await seedLeads(db, other, [{ phoneNumber: '+14155550123', externalId: 'crm-42' }]);
  });
  afterAll(async () => {
    await db?.close();
    await store?.drop();
  });

  it('finds phone numbers by their start and by their end', async () => {
    expect(numbers(await db.leads.search(campaignId, '+1415555', 50))).toEqual(['+14155550123', '+14155554567']);
    expect(numbers(await db.leads.search(campaignId, '4567', 50))).toEqual(['+14155554567', '+12125554567']);
    expect(numbers(await db.leads.search(campaignId, '+1212', 50))).toEqual(['+12125554567']);
    expect(numbers(await db.leads.search(campaignId, '555', 50))).toEqual([]);
  });

  it('finds externalIds by their start and end, case and all, with % and _ as themselves', async () => {
    expect(ids(await db.leads.search(campaignId, 'crm-', 50))).toEqual(['crm-42']);
    expect(ids(await db.leads.search(campaignId, 'CRM', 50))).toEqual(['CRM-43']);
    expect(ids(await db.leads.search(campaignId, 'a%b', 50))).toEqual(['a%b_c']);
    expect(ids(await db.leads.search(campaignId, 'b_c', 50))).toEqual(['a%b_c']);
    expect(ids(await db.leads.search(campaignId, '😀', 50))).toEqual(['ücrm-😀']);
    expect(ids(await db.leads.search(campaignId, 'ü', 50))).toEqual(['ücrm-😀']);
  });

  it('puts exact matches first, then the oldest', async () => {
    // '+1415' is a whole number and the start of three others
    expect(numbers(await db.leads.search(campaignId, '+1415', 50))).toEqual(['+1415', '+14155550123', '+14155554567', '+14150000001']);
  });

  it('keeps to the limit and says that more match', async () => {
    const two = await db.leads.search(campaignId, '+1', 2);
    expect(two.leads).toHaveLength(2);
    expect(two.more).toBe(true);
    const all = await db.leads.search(campaignId, '+1', 50);
    expect(all.leads).toHaveLength(5);
    expect(all.more).toBe(false);
  });

  it('stays in its campaign', async () => {
    const found = await db.leads.search(other, '+1415', 50);
    expect(found.leads.map((l) => l.campaign_id)).toEqual([other]);
  });

  it('reads an index range each way, however large the campaign', async () => {
    const big = await makeCampaign(db);
    await seedLeads(
      db,
      big,
      Array.from({ length: 4000 }, (_, i) => ({ phoneNumber: `+1646${String(i).padStart(7, '0')}`, externalId: `crm-${i}` })),
    );
    await sql`analyze`.execute(db.kysely);
    const plans = await db.leads.searchPlan(big, '+164600001');
    expect(plans).toHaveLength(4);
    const used = plans.map((p) => p.join('\n'));
    // the starts read the unique indexes on both stores (on PostgreSQL since migration 0021)
    const index = ['leads_campaign_phone_number', 'leads_phone_end', 'leads_campaign_external_id', 'leads_external_end'];
    if (kind === 'sqlite') {
      used.forEach((plan, i) => {
        expect(plan).toMatch(new RegExp(`SEARCH leads USING INDEX ${index[i]} \\(campaign_id=\\? AND \\S+>\\? AND \\S+<\\?\\)`));
        expect(plan).not.toMatch(/SCAN|TEMP B-TREE/);
      });
    } else {
      used.forEach((plan, i) => {
        expect(plan).toMatch(new RegExp(`Index Scan using ${index[i]} on leads`));
        expect(plan).not.toMatch(/Seq Scan|Sort|Filter/);
      });
    }
  });
});
