/**
 * lookupThenInsert, the plan of a bulk create whose first lead exists (a
 * retry): the leads are looked up, decided in request order, and only the new
 * ones are made rows and inserted. What each lead is answered with must come
 * back at its own index, also when another request inserts one of the new
 * leads between the lookup and the insert.
 */
import { describe, expect, it, vi } from 'vitest';
import { newIds } from '../../src/ids.js';
import { lookupThenInsert } from '../../src/leads/bulk-create.js';
import type { LeadInput } from '../../src/leads/schemas.js';
import type { Store } from '../../src/store/index.js';
import type { NewLeadRow } from '../../src/store/leads.js';
import { availableStores, useStore } from '../helpers/db.js';
import { makeCampaign } from '../dialer/support.js';

const row = (id: string, lead: LeadInput): NewLeadRow => ({
  id,
  phoneNumber: lead.phoneNumber ?? null,
  externalId: lead.externalId ?? null,
  metadata: '{}',
  scheduledFor: null,
  priority: 0,
});

describe.each(await availableStores())('lookupThenInsert on %s', (kind) => {
  let db: Store;
  useStore(kind, (opened) => {
    db = opened;
  });

  const stored = async (campaignId: string) =>
    db.kysely
      .selectFrom('leads')
      .select(['id', 'external_id', 'phone_number'])
      .where('campaign_id', '=', campaignId)
      .orderBy('seq')
      .execute();

  it('makes rows only of the new leads, and answers each lead at its index', async () => {
    const campaignId = await makeCampaign(db);
    const before: LeadInput[] = [{ externalId: 'a', phoneNumber: '+15550000001' }, { phoneNumber: '+15550000002' }];
    await db.leads.insertMany(
      campaignId,
      before.map((l, i) => row(newIds('ld_', 2)[i]!, l)),
      Date.now(),
    );
    const leads: LeadInput[] = [
      { externalId: 'a', phoneNumber: '+15559999999' }, // there: by externalId
      { externalId: 'n1', phoneNumber: '+15550000011' }, // new
      { phoneNumber: '+15550000002' }, // there: by phone number
      { externalId: 'n2' }, // new, no phone number
      { externalId: 'n1', phoneNumber: '+15550000012' }, // repeats the new lead at 1
      { phoneNumber: '+15550000013' }, // new
    ];
    const made: number[] = [];
    const plan = await lookupThenInsert(
      db,
      campaignId,
      leads,
      (i) => {
        made.push(i);
        return row('', leads[i]!);
      },
      Date.now,
    );
    expect(made).toEqual([1, 3, 5]);
    expect(plan.map((x) => x.skippedAs)).toEqual(['a', null, '+15550000002', null, 'n1', null]);
    const rows = await stored(campaignId);
    expect(rows.slice(2).map((r) => [r.id, r.external_id, r.phone_number])).toEqual([
      [plan[1]!.id, 'n1', '+15550000011'],
      [plan[3]!.id, 'n2', null],
      [plan[5]!.id, null, '+15550000013'],
    ]);
    expect(new Set([plan[1]!.id, plan[3]!.id, plan[5]!.id]).size).toBe(3);
  });

  it('a new lead another request inserts between the lookup and the insert is answered as skipped, at its index', async () => {
    const campaignId = await makeCampaign(db);
    await db.leads.insertMany(campaignId, [row(newIds('ld_', 1)[0]!, { externalId: 'first' })], Date.now());
    const leads: LeadInput[] = [
      { externalId: 'first' },
      { externalId: 'x1', phoneNumber: '+15550000021' },
      { externalId: 'x2', phoneNumber: '+15550000022' },
      { externalId: 'x3', phoneNumber: '+15550000023' },
    ];
    // after both lookups, the other request takes x2's phone number
    const taken = db.leads.taken.bind(db.leads);
    const spy = vi.spyOn(db.leads, 'taken').mockImplementation(async (c, column, values) => {
      const found = await taken(c, column, values);
      if (column === 'phone_number') {
        await db.leads.insertMany(
          campaignId,
          [row(newIds('ld_', 1)[0]!, { externalId: 'other', phoneNumber: '+15550000022' })],
          Date.now(),
        );
      }
      return found;
    });
    try {
      const plan = await lookupThenInsert(db, campaignId, leads, (i) => row('', leads[i]!), Date.now);
      expect(plan.map((x) => x.skippedAs)).toEqual(['first', null, '+15550000022', null]);
      const rows = await stored(campaignId);
      expect(rows.map((r) => [r.external_id, r.id === plan[1]!.id || r.id === plan[3]!.id])).toEqual([
        ['first', false],
        ['other', false],
        ['x1', true],
        ['x3', true],
      ]);
    } finally {
      spy.mockRestore();
    }
  });
});
