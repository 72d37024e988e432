/**
 * GET /api/v1/leads cursors cannot be forged into an oracle of other
 * companies' counts. docs/api.md: the cursor "tells nothing of how many leads
 * anyone else created"; SECURITY.md: no response carries another tenant's
 * count. The form before (`v1.` and the seq in base 36, base64url) was read
 * and bound to no campaign, so a client could write one for any seq and, by
 * bisection over its own campaign's pages, find where its leads fell in the
 * deployment-wide seq. It is refused now (src/leads/cursor.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableStores } from '../helpers/db.js';
import { type Fixture, makeFixture } from '../helpers/fixture.js';
import { ok, phone } from './support.js';

const v1ListCursor = (seq: number) => Buffer.from(`v1.${seq.toString(36)}`).toString('base64url');

describe.each(await availableStores())('forged list cursors on %s', (kind) => {
  let f: Fixture;
  beforeAll(async () => {
    f = await makeFixture(kind);
  });
  afterAll(() => f?.close());

  it('do not reveal how many leads another company created between two of ours', async () => {
    const { campaignA, campaignB } = f.ids;
    const create = async (campaignId: string, key?: string) =>
      ok(await f.request('POST', '/api/v1/leads', { key, body: { campaignId, phoneNumber: phone() } }), 201).leadId as string;
    const first = await create(campaignA);
    const OTHERS = 5;
    for (let i = 0; i < OTHERS; i++) await create(campaignB, f.keys.writeB);
    const second = await create(campaignA);

    /** whether the lead is on campaign A's page after a forged position; null when the cursor is refused */
    async function after(seq: number, leadId: string): Promise<boolean | null> {
      const res = await f.request('GET', '/api/v1/leads', { query: { campaignId: campaignA, cursor: v1ListCursor(seq) } });
      if (res.status !== 200) return null;
      return (res.body.data.leads as { _id: string }[]).some((l) => l._id === leadId);
    }
    /** the lead's position in the deployment-wide sequence, found by bisection: ~20 list calls */
    async function positionOf(leadId: string): Promise<number> {
      let lo = 0;
      let hi = 1 << 20;
      while (lo < hi) {
        const mid = Math.floor((lo + hi) / 2);
        const seen = await after(mid, leadId);
        if (seen === null) return Number.NaN;
        if (seen) lo = mid + 1;
        else hi = mid;
      }
      return lo;
    }
    const gap = (await positionOf(second)) - (await positionOf(first)) - 1;
    expect(gap, `company A learned that company B created ${gap} leads`).not.toBe(OTHERS);
  });
});
