/**
 * Lead and attempt ids made later sort after earlier ones (byte order), so
 * that the unique index on them takes new entries at its right edge instead
 * of at random pages (src/ids.ts, orderedIds).
 */
import { describe, expect, it } from 'vitest';
import { createCampaign, createCompany } from '../../src/campaigns/service.js';
import { newAttemptId } from '../../src/dialer/attempts.js';
import { orderedIds } from '../../src/ids.js';
import { LeadService } from '../../src/leads/service.js';
import type { Store } from '../../src/store/index.js';
import { availableStores, useStore } from '../helpers/db.js';

const byteOrder = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));
const sortedCopy = (ids: readonly string[]) => [...ids].sort(byteOrder);

describe('orderedIds', () => {
  it('puts the time first: every id of a later millisecond sorts after every id of an earlier one', () => {
    const t = Date.parse('2026-11-29T04:00:00Z');
    const earlier = orderedIds('ld_', 500, t);
    const later = orderedIds('ld_', 500, t + 1);
    expect(
      sortedCopy([...later, ...earlier])
        .slice(0, 500)
        .sort(),
    ).toEqual([...earlier].sort());
    for (const id of [...earlier, ...later]) expect(id).toMatch(/^ld_[0-9a-z]{9}[A-Za-z0-9_-]{22}$/);
    expect(new Set([...earlier, ...later]).size).toBe(1000);
    // across a change in the number of base-36 digits' carry, and years apart
    expect(byteOrder(orderedIds('at_', 1, 35)[0]!, orderedIds('at_', 1, 36)[0]!)).toBeLessThan(0);
    expect(byteOrder(orderedIds('at_', 1, t)[0]!, orderedIds('at_', 1, t + 365 * 86_400_000)[0]!)).toBeLessThan(0);
  });

  it('makes attempt ids the same way', async () => {
    const first = newAttemptId();
    await new Promise((r) => setTimeout(r, 2));
    expect(byteOrder(first, newAttemptId())).toBeLessThan(0);
    expect(first).toMatch(/^at_[0-9a-z]{9}[A-Za-z0-9_-]{22}$/);
  });
});

describe.each(await availableStores())('lead ids on %s', (kind) => {
  let db: Store;
  useStore(kind, (opened) => {
    db = opened;
  });

  it('a bulk create made later gives ids that sort after those of an earlier one, and so does a single create', async () => {
    const { companyId } = await createCompany(db, 'Ordered');
    const { campaignId } = await createCampaign(db, { companyId, name: 'Ordered' });
    let now = Date.parse('2026-11-29T04:00:00Z');
    const leads = new LeadService(db, () => now);
    const who = { companyId, campaignId: null };
    const batch = (from: number) =>
      Array.from({ length: 200 }, (_, i) => ({ phoneNumber: `+1415555${String(from + i).padStart(4, '0')}` }));
    const first = await leads.bulkCreate(who, campaignId, batch(0));
    now += 1;
    const second = await leads.bulkCreate(who, campaignId, batch(200));
    now += 1;
    const single = await leads.create(who, { campaignId, phoneNumber: '+14155559999' });
    const all = [...first.createdIds, ...second.createdIds, single];
    expect(all).toHaveLength(401);
    const sorted = sortedCopy(all);
    expect(sorted.slice(0, 200).sort()).toEqual([...first.createdIds].sort());
    expect(sorted.slice(200, 400).sort()).toEqual([...second.createdIds].sort());
    expect(sorted[400]).toBe(single);
  });
});
