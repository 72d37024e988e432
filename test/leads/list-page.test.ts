/**
 * A list page's JSON text, byte for byte, on both stores. Each lead's JSON is
 * built by the database (json_quote on SQLite, to_json on PostgreSQL) and
 * must be what JSON.stringify writes: the same escapes for quotes,
 * backslashes and control characters, non-ASCII left as it is, metadata
 * spliced as the JSON text it is stored as.
 */
import { describe, expect, it } from 'vitest';
import { newIds } from '../../src/ids.js';
import type { Store } from '../../src/store/index.js';
import type { NewLeadRow } from '../../src/store/leads.js';
import { availableStores, useStore } from '../helpers/db.js';
import { makeCampaign } from '../dialer/support.js';

/** every character that JSON escapes, and some that it does not */
const AWKWARD = ['"', '\\', '/', '\b', '\f', '\n', '\r', '\t', '\u0001', '\u001f', '\u007f', 'é', '✓', '😀', '\u2028', '\u2029', '<', '>'];

describe.each(await availableStores())('list page JSON on %s', (kind) => {
  let db: Store;
  useStore(kind, (opened) => {
    db = opened;
  });

  it('is the JSON.stringify of each lead, in order, whatever the characters', async () => {
    const campaignId = await makeCampaign(db);
    const now = 1_700_000_000_123;
    const rows: NewLeadRow[] = newIds('ld_', AWKWARD.length + 2).map((id, i) => ({
      id,
      phoneNumber: i % 3 === 0 ? null : `+1415555${String(i).padStart(4, '0')}`,
      externalId: i < AWKWARD.length ? `x${AWKWARD[i]}y${AWKWARD.join('')}` : i % 2 === 0 ? null : `plain-${i}`,
      metadata: JSON.stringify({ n: i, s: AWKWARD.join(''), nested: { a: [1, 'two', null] } }),
      scheduledFor: i % 2 === 0 ? '2030-01-02T03:04:05.678Z' : null,
      priority: i % 101,
    }));
    // phone numbers or externalIds, never neither
    for (const r of rows) if (r.phoneNumber === null && r.externalId === null) r.phoneNumber = `+1415666${r.id.length}`;
    await db.leads.insertMany(campaignId, rows, now);
    const expected = `[${rows
      .map((r) =>
        JSON.stringify({
          _id: r.id,
          campaignId,
          ...(r.phoneNumber === null ? {} : { phoneNumber: r.phoneNumber }),
          ...(r.externalId === null ? {} : { externalId: r.externalId }),
          metadata: JSON.parse(r.metadata),
          status: 'raw',
          ...(r.scheduledFor === null ? {} : { scheduledFor: r.scheduledFor }),
          priority: r.priority,
          attempts: 0,
          _creationTime: now,
        }),
      )
      .join(',')}]`;
    const whole = await db.leads.listPage(campaignId, undefined, 0, 1000);
    expect(whole.page).toBe(expected);
    expect(whole).toMatchObject({ n: rows.length, more: false });
    // the status filter's statement writes the same
    expect((await db.leads.listPage(campaignId, 'raw', 0, 1000)).page).toBe(expected);
    // and a page in two halves, joined, is the whole
    const first = await db.leads.listPage(campaignId, undefined, 0, 10);
    const rest = await db.leads.listPage(campaignId, undefined, first.last!, 1000);
    expect(first.more).toBe(true);
    expect(`${first.page.slice(0, -1)},${rest.page.slice(1)}`).toBe(expected);
  });
});
