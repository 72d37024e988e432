/**
 * GET /api/v1/events: `hasMore` is false only when nothing readable follows
 * the cursor, whatever the page size and however the events fall into rows.
 * A cursor inside a read-out row once took one of the rows a page fetched, so
 * with one-event rows about every second page said hasMore: false while events
 * followed, and a consumer (or the deliverer) following "until hasMore is
 * false" stopped early. docs/events.md "Pull API".
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCampaign } from '../../src/campaigns/service.js';
import { availableStores } from '../helpers/db.js';
import { type Fixture, makeFixture } from '../helpers/fixture.js';
import { ok, phone, phoneLeads, seed } from '../api/support.js';

describe.each(await availableStores())('pull API hasMore on %s', (kind) => {
  let f: Fixture;
  beforeAll(async () => {
    f = await makeFixture(kind);
  });
  afterAll(() => f.close());

  const events = (query: Record<string, string>) => f.request('GET', '/api/v1/events', { query });

  /** waits until `n` events of the campaign are readable (PostgreSQL: older transactions anywhere must end) */
  async function readable(campaignId: string, n: number) {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const all = ok(await events({ campaignId, limit: '1000' }));
      if (all.count >= n || Date.now() > deadline) return all.events.map((e: any) => e.id) as string[];
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** follows pages of `limit` until hasMore is false, as docs/events.md tells consumers to */
  async function follow(campaignId: string, limit: number) {
    const got: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 50; page++) {
      const p = ok(await events({ campaignId, limit: String(limit), ...(cursor ? { after: cursor } : {}) }));
      got.push(...p.events.map((e: any) => e.id));
      cursor = p.cursor;
      if (!p.hasMore) break;
    }
    return got;
  }

  it('one-event rows: a consumer that stops at hasMore: false has read every event, at every page size', async () => {
    const { campaignId } = await createCampaign(f.db, { companyId: f.ids.companyA, name: 'one-event rows' });
    for (let i = 0; i < 5; i++) ok(await f.request('POST', '/api/v1/leads', { body: { campaignId, phoneNumber: phone() } }), 201);
    const all = await readable(campaignId, 5);
    expect(all).toHaveLength(5);
    for (let limit = 1; limit <= 6; limit++) expect(await follow(campaignId, limit), `limit ${limit}`).toEqual(all);
  });

  it('rows of several events and of one, mixed', async () => {
    const { campaignId } = await createCampaign(f.db, { companyId: f.ids.companyA, name: 'mixed rows' });
    await seed(f, campaignId, phoneLeads(3));
    for (let i = 0; i < 2; i++) ok(await f.request('POST', '/api/v1/leads', { body: { campaignId, phoneNumber: phone() } }), 201);
    await seed(f, campaignId, phoneLeads(2));
    const all = await readable(campaignId, 7);
    expect(all).toHaveLength(7);
    for (let limit = 1; limit <= 8; limit++) expect(await follow(campaignId, limit), `limit ${limit}`).toEqual(all);
  });
});
