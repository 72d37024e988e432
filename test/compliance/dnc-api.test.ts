/**
 * The do-not-call list's API: POST /api/v1/dnc, POST /api/v1/dnc/remove,
 * GET /api/v1/dnc?phoneNumber= and ?limit=&cursor=, in the envelope, with the
 * key rules (write to change, company-wide keys only) and the usual
 * validation. docs/compliance.md "Do-not-call list".
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableStores } from '../helpers/db.js';
import { type Fixture, makeFixture } from '../helpers/fixture.js';
import { expectError, expectFieldError, expectRateHeaders, ok } from '../api/support.js';

const CAMPAIGN_KEY = "A campaign's key cannot use the company's do-not-call list; use a company-wide key";

describe.each(await availableStores())('the do-not-call API on %s', (kind) => {
  let f: Fixture;
  beforeAll(async () => {
    f = await makeFixture(kind);
  });
  afterAll(() => f.close());

  const add = (body: unknown, key?: string) => f.request('POST', '/api/v1/dnc', { key, body });
  const remove = (body: unknown, key?: string) => f.request('POST', '/api/v1/dnc/remove', { key, body });
  const get = (query: Record<string, string>, key?: string | null) => f.request('GET', '/api/v1/dnc', { key, query });

  it('adds numbers, counting those already listed (repeats within a request count once); a lookup shows when, how and why', async () => {
    const res = await add({ phoneNumbers: ['+14155550001', '+14155550002', '+14155550002'], reason: 'asked by email' });
    expect(ok(res)).toEqual({ added: 2, alreadyListed: 0 });
    expectRateHeaders(res);
    f.clock.advance(1000);
    expect(ok(await add({ phoneNumbers: ['+14155550002', '+14155550003'] }))).toEqual({ added: 1, alreadyListed: 1 });
    // the first listing's entry is kept
    const t = new Date(f.clock.now - 1000).toISOString();
    expect(ok(await get({ phoneNumber: '+14155550002' }))).toEqual({ listed: true, addedAt: t, source: 'api', reason: 'asked by email' });
    expect(ok(await get({ phoneNumber: '+14155550003' }))).toEqual({
      listed: true,
      addedAt: new Date(f.clock.now).toISOString(),
      source: 'api',
    });
    expect(ok(await get({ phoneNumber: '+14155559999' }))).toEqual({ listed: false });
    // an unencoded "+" arrives as a space and is put back
    expect(ok(await f.request('GET', '/api/v1/dnc?phoneNumber=+14155550001')).listed).toBe(true);
    // a read key may look up
    expect(ok(await get({ phoneNumber: '+14155550001' }, f.keys.readA)).listed).toBe(true);
  });

  it('writes one dnc.added event row per request, holding the numbers newly listed', async () => {
    const before = await f.db.events.lastId();
    ok(await add({ phoneNumbers: ['+14155550101', '+14155550102'], reason: 'r' }));
    ok(await add({ phoneNumbers: ['+14155550101'] })); // nothing new: no row
    const rows = await f.db.events.after(before, null, 10);
    expect(rows.map((r) => [r.type, r.company_id, r.campaign_id, r.count])).toEqual([['dnc.added', f.ids.companyA, null, 2]]);
    expect(JSON.parse(rows[0]!.items)).toEqual([
      { phoneNumber: '+14155550101', source: 'api', reason: 'r' },
      { phoneNumber: '+14155550102', source: 'api', reason: 'r' },
    ]);
  });

  it('removes numbers, counting those not listed', async () => {
    ok(await add({ phoneNumbers: ['+14155550201', '+14155550202'] }));
    expect(ok(await remove({ phoneNumbers: ['+14155550201', '+14155550299'] }))).toEqual({ removed: 1, notListed: 1 });
    expect(ok(await get({ phoneNumber: '+14155550201' }))).toEqual({ listed: false });
    expect(ok(await get({ phoneNumber: '+14155550202' })).listed).toBe(true);
  });

  it("keeps each company's list its own", async () => {
    ok(await add({ phoneNumbers: ['+14155550301'] }));
    expect(ok(await get({ phoneNumber: '+14155550301' }, f.keys.writeB))).toEqual({ listed: false });
    expect(ok(await remove({ phoneNumbers: ['+14155550301'] }, f.keys.writeB))).toEqual({ removed: 0, notListed: 1 });
    expect(ok(await get({ phoneNumber: '+14155550301' })).listed).toBe(true);
    const pageB = ok(await get({ limit: '8000' }, f.keys.writeB));
    expect(pageB.entries.map((e: { phoneNumber: string }) => e.phoneNumber)).not.toContain('+14155550301');
  });

  it('pages through the list in number order with a cursor, every entry once', async () => {
    const mine = Array.from({ length: 25 }, (_, i) => `+1212555${String(i).padStart(4, '0')}`);
    ok(await add({ phoneNumbers: [...mine].reverse() }, f.keys.writeB));
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let pages = 0; pages < 10; pages++) {
      const page = ok(await get({ limit: '10', ...(cursor ? { cursor } : {}) }, f.keys.writeB));
      expect(page.count).toBe(page.entries.length);
      seen.push(...page.entries.map((e: { phoneNumber: string; source: string }) => e.phoneNumber));
      for (const e of page.entries) expect(e).toEqual({ phoneNumber: e.phoneNumber, addedAt: expect.any(String), source: 'api' });
      cursor = page.cursor;
      if (!page.hasMore) break;
    }
    expect(seen).toEqual(mine);
    // after the last page the cursor still answers: nothing newer yet
    expect(ok(await get({ cursor: cursor! }, f.keys.writeB))).toMatchObject({ entries: [], count: 0, hasMore: false, cursor });
  });

  it('needs a write key to change the list, and refuses campaign keys everywhere', async () => {
    expectError(await add({ phoneNumbers: ['+14155550401'] }, f.keys.readA), 403, 'Insufficient permissions');
    expectError(await remove({ phoneNumbers: ['+14155550401'] }, f.keys.readA), 403, 'Insufficient permissions');
    expectError(await add({ phoneNumbers: ['+14155550401'] }, f.keys.restrictedA), 403, CAMPAIGN_KEY);
    expectError(await remove({ phoneNumbers: ['+14155550401'] }, f.keys.restrictedA), 403, CAMPAIGN_KEY);
    expectError(await get({ phoneNumber: '+14155550401' }, f.keys.restrictedA), 403, CAMPAIGN_KEY);
    expectError(await get({}, f.keys.restrictedA), 403, CAMPAIGN_KEY);
    expectError(await get({ phoneNumber: '+14155550401' }, null), 401, 'Missing API key');
    expect(ok(await get({ phoneNumber: '+14155550401' })).listed).toBe(false);
  });

  it('a campaign key\'s invalid query is 400 before the 403, as its invalid body is (docs/api.md "Order of checks")', async () => {
    const body = await add({ phoneNumbers: ['not-a-number'] }, f.keys.restrictedA);
    expectFieldError(body, /^phoneNumbers\[0\]: phoneNumber must be in E\.164/);
    expectError(await get({ cursor: 'not-a-cursor' }, f.keys.restrictedA), 400, 'Invalid cursor');
    expectFieldError(await get({ limit: '0' }, f.keys.restrictedA), 'limit must be a whole number');
    // a valid query still meets the 403
    expectError(await get({ limit: '5' }, f.keys.restrictedA), 403, CAMPAIGN_KEY);
  });

  it('validates every input with a clear 400 and writes nothing', async () => {
    const before = ok(await get({ limit: '8000' })).count;
    expectError(await add({}), 400, 'phoneNumbers is required');
    expectError(await add({ phoneNumbers: [] }), 400, 'phoneNumbers array cannot be empty');
    expectError(await add({ phoneNumbers: '+14155550501' }), 400, 'phoneNumbers must be an array of E.164 phone numbers');
    expectFieldError(await add({ phoneNumbers: ['+14155550501', '4155550502'] }), /^phoneNumbers\[1\]: phoneNumber must be in E\.164/);
    expectFieldError(await add({ phoneNumbers: ['+14155550501', 5] }), /^phoneNumbers\[1\]:/);
    const many = Array.from({ length: 1001 }, (_, i) => `+1646555${String(i).padStart(4, '0')}`);
    expectError(await add({ phoneNumbers: many }), 400, 'Maximum 1000 phone numbers per request');
    expectFieldError(await add({ phoneNumbers: ['+14155550501'], reason: 7 }), 'reason must be a string');
    expectFieldError(await add({ phoneNumbers: ['+14155550501'], reason: 'x'.repeat(501) }), 'reason must be a string');
    expectFieldError(await add({ phoneNumbers: ['+14155550501'], reason: 'a\u0000b' }), 'reason must be a string');
    expectFieldError(await remove({ phoneNumbers: ['nope'] }), /^phoneNumbers\[0\]: /);
    expectFieldError(await get({ phoneNumber: '14155550501' }), 'phoneNumber must be in E.164');
    expectFieldError(await get({ limit: '0' }), 'limit must be a whole number');
    expectError(await get({ cursor: 'garbage' }), 400, 'Invalid cursor');
    expectError(await get({ cursor: Buffer.from('d1.nope').toString('base64url') }), 400, 'Invalid cursor');
    expectError(await get({ phoneNumber: '+14155550501', limit: '5' }), 400, 'Give phoneNumber, or limit and cursor, not both');
    expectError(
      await f.request('POST', '/api/v1/dnc', { body: '{"phoneNumbers": [', headers: { 'content-type': 'application/json' } }),
      400,
      'Request body is not valid JSON',
    );
    expect(ok(await get({ limit: '8000' })).count).toBe(before);
  });

  it('lists 1000 numbers in one request, atomically', async () => {
    const many = Array.from({ length: 1000 }, (_, i) => `+1718555${String(i).padStart(4, '0')}`);
    expect(ok(await add({ phoneNumbers: many, reason: 'import' }))).toEqual({ added: 1000, alreadyListed: 0 });
    expect(ok(await add({ phoneNumbers: many }))).toEqual({ added: 0, alreadyListed: 1000 });
    expect(ok(await remove({ phoneNumbers: many }))).toEqual({ removed: 1000, notListed: 0 });
  });
});
