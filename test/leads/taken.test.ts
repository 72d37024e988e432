/**
 * LeadStore.taken, the lookup of a bulk create's retry: which of the given
 * identifiers a campaign's leads hold. On SQLite the values found come back as
 * one JSON array built by the database (json_group_array), so every character
 * an identifier may hold must survive that array's text and JSON.parse.
 */
import { describe, expect, it } from 'vitest';
import { newIds } from '../../src/ids.js';
import type { Store } from '../../src/store/index.js';
import type { NewLeadRow } from '../../src/store/leads.js';
import { availableStores, useStore } from '../helpers/db.js';
import { makeCampaign } from '../dialer/support.js';

const ODD = [
  'plain',
  'a "quoted" id',
  'back\\slash',
  'tab\there',
  'line\nbreak',
  'ünïcödé',
  '😀 emoji',
  '123',
  '1e3',
  'null',
  '{"a":1}',
  '[1,2]',
  ' ',
];

describe.each(await availableStores())('taken on %s', (kind) => {
  let db: Store;
  useStore(kind, (opened) => {
    db = opened;
  });

  const insert = async (campaignId: string, externalIds: readonly string[]) => {
    const ids = newIds('ld_', externalIds.length);
    const rows: NewLeadRow[] = externalIds.map((externalId, i) => ({
      id: ids[i]!,
      phoneNumber: `+1555000${String(i).padStart(4, '0')}`,
      externalId,
      metadata: '{}',
      scheduledFor: null,
      priority: 0,
    }));
    await db.leads.insertMany(campaignId, rows, Date.now());
  };

  it('answers exactly the identifiers the campaign holds, whatever their characters', async () => {
    const campaignId = await makeCampaign(db);
    const other = await makeCampaign(db);
    await insert(campaignId, ODD);
    await insert(other, ['only-in-the-other']);
    const asked = [...ODD, 'absent', 'only-in-the-other', 'PLAIN'];
    expect(await db.leads.taken(campaignId, 'external_id', asked)).toEqual(new Set(ODD));
    expect(await db.leads.taken(campaignId, 'phone_number', ['+15550000000', '+15550000012', '+15559999999'])).toEqual(
      new Set(['+15550000000', '+15550000012']),
    );
  });

  it('answers an empty set when nothing is there, or nothing is asked', async () => {
    const campaignId = await makeCampaign(db);
    await insert(campaignId, ['x']);
    expect(await db.leads.taken(campaignId, 'external_id', ['y', 'z'])).toEqual(new Set());
    expect(await db.leads.taken(campaignId, 'external_id', [])).toEqual(new Set());
  });
});
