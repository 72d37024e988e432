/**
 * EventStore.append with several events (src/store/events.ts): one row each,
 * in the order given (the ids that readers and webhooks follow), none for an
 * event without items, each under its campaign's company; on a real database.
 */
import { describe, expect, it, vi } from 'vitest';
import { createCampaign, createCompany } from '../../src/campaigns/service.js';
import type { Store } from '../../src/store/index.js';
import { availableStores, useStore } from '../helpers/db.js';

const T0 = Date.parse('2026-03-10T14:00:00.000Z');

describe.each(await availableStores())('events appended together on %s', (kind) => {
  let db: Store;
  useStore(kind, (opened) => {
    db = opened;
  });

  it('writes one row per event with items, in the order given, in one statement', async () => {
    const one = await createCompany(db, 'One');
    const two = await createCompany(db, 'Two');
    const a = (await createCampaign(db, { companyId: one.companyId, name: 'a' })).campaignId;
    const b = (await createCampaign(db, { companyId: two.companyId, name: 'b' })).campaignId;
    const before = await db.events.lastId();
    const item = (leadId: string) => ({ leadId, externalId: null });
    const statements = vi.spyOn(db.kysely.getExecutor(), 'executeQuery');
    try {
      await db.events.append(
        { type: 'attempt.finished', campaignId: b, items: [item('ld_1'), item('ld_2')], now: T0 },
        { type: 'lead.status_changed', campaignId: a, items: [], now: T0 },
        { type: 'lead.status_changed', campaignId: a, items: [item('ld_3')], now: T0 + 1 },
        { type: 'attempt.finished', campaignId: a, items: [item('ld_4')], now: T0 + 2 },
      );
      expect(statements).toHaveBeenCalledTimes(1);
    } finally {
      statements.mockRestore();
    }
    const rows = await db.kysely.selectFrom('events').selectAll().where('id', '>', before).orderBy('id').execute();
    expect(
      rows.map((r) => ({
        type: r.type,
        company: r.company_id,
        campaign: r.campaign_id,
        at: Number(r.created_at),
        count: Number(r.count),
        items: JSON.parse(r.items),
      })),
    ).toEqual([
      { type: 'attempt.finished', company: two.companyId, campaign: b, at: T0, count: 2, items: [item('ld_1'), item('ld_2')] },
      { type: 'lead.status_changed', company: one.companyId, campaign: a, at: T0 + 1, count: 1, items: [item('ld_3')] },
      { type: 'attempt.finished', company: one.companyId, campaign: a, at: T0 + 2, count: 1, items: [item('ld_4')] },
    ]);
    // nothing to write, no statement
    const none = vi.spyOn(db.kysely.getExecutor(), 'executeQuery');
    try {
      await db.events.append({ type: 'lead.status_changed', campaignId: a, items: [], now: T0 });
      expect(none).not.toHaveBeenCalled();
    } finally {
      none.mockRestore();
    }
  });
});
