/**
 * Tenant isolation: every key of the matrix (company A write, A read, A
 * restricted to one campaign, company B, revoked) against every lead route
 * under both prefixes and every campaign. No response holds another tenant's
 * lead, count or identifier, and nothing outside the key's reach changes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, ok, PREFIXES, seed } from '../api/support.js';
import { availableStores } from '../helpers/db.js';
import { type Fixture, makeFixture, type Reply } from '../helpers/fixture.js';

type KeyName = 'writeA' | 'readA' | 'restrictedA' | 'writeB' | 'revokedA';
type Endpoint = 'create' | 'create-duplicate' | 'list' | 'delete' | 'bulk' | 'bulk-delete';
interface Call {
  endpoint: Endpoint;
  method: 'GET' | 'POST' | 'DELETE';
  url: string;
  body?: unknown;
  query?: Record<string, string>;
}

const KEYS: KeyName[] = ['writeA', 'readA', 'restrictedA', 'writeB', 'revokedA'];
const SHARED = { phoneNumber: '+14155557000', externalId: 'shared-crm-1' };
const SECRETS = 3;

let fresh = 0;
const freshPhone = () => `+1415666${String(++fresh).padStart(4, '0')}`;
const secretExt = (tag: string, i: number) => `secret-${tag}-${i}`;
const secretPhone = (tag: number, i: number) => `+1415888${tag}${String(i).padStart(3, '0')}`;

describe.each(await availableStores())('tenant isolation on %s', (kind) => {
  let f: Fixture;
  let campaigns: { id: string; tag: string; n: number }[];
  let reach: Record<KeyName, string[]>;
  const writes: Record<KeyName, boolean> = { writeA: true, readA: false, restrictedA: true, writeB: true, revokedA: false };

  beforeAll(async () => {
    f = await makeFixture(kind);
    const { campaignA, campaignA2, prefetchA, campaignB } = f.ids;
    campaigns = [
      { id: campaignA, tag: 'a1', n: 1 },
      { id: campaignA2, tag: 'a2', n: 2 },
      { id: prefetchA, tag: 'ap', n: 3 },
      { id: campaignB, tag: 'b1', n: 4 },
    ];
    const companyA = [campaignA, campaignA2, prefetchA];
    reach = { writeA: companyA, readA: companyA, restrictedA: [campaignA], writeB: [campaignB], revokedA: [] };
    for (const c of campaigns) {
      const leads = [
        { ...SHARED, metadata: { owner: c.tag } },
        ...Array.from({ length: SECRETS }, (_, i) => ({ externalId: secretExt(c.tag, i), phoneNumber: secretPhone(c.n, i) })),
      ];
      await seed(f, c.id, leads, c.id === campaignB ? f.keys.writeB : f.keys.writeA);
    }
  });
  afterAll(() => f?.close());

  /** every lead row, by campaign, as comparable text */
  async function snapshot(): Promise<Map<string, string>> {
    const rows = await f.db.kysely.selectFrom('leads').selectAll().orderBy('seq').execute();
    const by = new Map<string, string[]>();
    for (const r of rows) by.set(r.campaign_id, [...(by.get(r.campaign_id) ?? []), JSON.stringify(r)]);
    return new Map([...by].map(([id, list]) => [id, list.join('\n')]));
  }

  /** ids and secret identifiers of every lead the key must never see */
  async function foreignValues(key: KeyName): Promise<string[]> {
    const rows = await f.db.kysely.selectFrom('leads').selectAll().execute();
    return rows
      .filter((r) => !reach[key].includes(r.campaign_id))
      .flatMap((r) => [r.id, r.external_id, r.phone_number])
      .filter((v): v is string => v !== null && v !== SHARED.externalId && v !== SHARED.phoneNumber);
  }

  function callsOn(prefix: string, target: string, tag: string): Call[] {
    const other = campaigns.find((c) => c.id !== target)!;
    return [
      {
        endpoint: 'create',
        method: 'POST',
        url: prefix,
        body: { campaignId: target, phoneNumber: freshPhone(), externalId: `new-${fresh}` },
      },
      { endpoint: 'create-duplicate', method: 'POST', url: prefix, body: { campaignId: target, externalId: SHARED.externalId } },
      { endpoint: 'list', method: 'GET', url: prefix, query: { campaignId: target } },
      { endpoint: 'delete', method: 'DELETE', url: prefix, query: { campaignId: target, externalId: secretExt(tag, 0) } },
      { endpoint: 'delete', method: 'DELETE', url: prefix, query: { campaignId: target, phoneNumber: SHARED.phoneNumber } },
      {
        endpoint: 'bulk',
        method: 'POST',
        url: `${prefix}/bulk`,
        // campaignId inside an entry is the server's to set: it must be ignored
        body: { campaignId: target, leads: [{ phoneNumber: freshPhone() }, SHARED, { phoneNumber: freshPhone(), campaignId: other.id }] },
      },
      {
        endpoint: 'bulk-delete',
        method: 'POST',
        url: `${prefix}/bulk-delete`,
        body: {
          campaignId: target,
          leads: [{ externalId: secretExt(tag, 1) }, { phoneNumber: secretPhone(other.n, 2) }, { externalId: secretExt(other.tag, 2) }],
        },
      },
    ];
  }

  function expectAllowedOutcome(key: KeyName, call: Call, target: string, res: Reply): void {
    const write = call.endpoint !== 'list';
    if (key === 'revokedA') {
      expectError(res, 401, 'Invalid or inactive API key');
      return;
    }
    if (write && !writes[key]) {
      expectError(res, 403, 'Insufficient permissions');
      return;
    }
    if (!reach[key].includes(target)) {
      if (call.endpoint === 'delete' || call.endpoint === 'bulk-delete') expectError(res, 403, 'Forbidden');
      else expectError(res, 404, 'Campaign not found or access denied');
      return;
    }
    // within reach: the operation itself decides (created, duplicate, not found, predial rule)
    expect([200, 201, 400, 404, 409], JSON.stringify(res.body)).toContain(res.status);
    if (res.status === 404) expect(res.body.error).toBe('Lead not found');
  }

  describe.each(PREFIXES)('%s', (prefix) => {
    it.each(KEYS)('%s: on every route and campaign, sees and changes only what it may', async (key) => {
      const targets = [...campaigns, { id: 'cp_missing', tag: 'zz', n: 9 }];
      for (const t of targets) {
        for (const call of callsOn(prefix, t.id, t.tag)) {
          const before = await snapshot();
          const foreign = await foreignValues(key);
          const res = await f.request(call.method, call.url, { key: f.keys[key], body: call.body, query: call.query });
          const where = `${key} ${call.endpoint} on ${t.tag}`;

          expectAllowedOutcome(key, call, t.id, res);
          const sent = JSON.stringify([call.body, call.query]);
          const text = JSON.stringify(res.body);
          // whole JSON strings, so that "new-7" is not found inside "new-70"
          for (const value of foreign.map((v) => JSON.stringify(v))) {
            if (!sent.includes(value)) expect(text, `${where} leaks ${value}`).not.toContain(value);
          }

          const after = await snapshot();
          for (const c of campaigns) {
            if (!(writes[key] && reach[key].includes(c.id) && c.id === t.id)) {
              expect(after.get(c.id), `${where} changed ${c.tag}`).toBe(before.get(c.id));
            }
          }
          if (call.endpoint === 'list' && res.status === 200) {
            const data = ok(res);
            const own = await f.db.kysely.selectFrom('leads').select('id').where('campaign_id', '=', t.id).orderBy('seq').execute();
            expect(
              data.leads.map((l: { _id: string }) => l._id),
              where,
            ).toEqual(own.map((r) => r.id));
            expect(data.count, where).toBe(own.length);
            for (const lead of data.leads) expect(lead.campaignId, where).toBe(t.id);
          }
        }
      }
    });
  });

  it('a campaignId given twice cannot widen the reach', async () => {
    const { campaignA, campaignB } = f.ids;
    const query = await f.app.inject({
      method: 'GET',
      url: `/api/v1/leads?campaignId=${campaignA}&campaignId=${campaignB}`,
      headers: { 'x-api-key': f.keys.writeA },
    });
    expect(query.statusCode).toBe(400);
    expect(query.body).not.toContain(campaignB.slice(3));
    // in a JSON body the last one wins, and is checked like any other
    const before = await snapshot();
    const body = await f.request('POST', '/api/v1/leads/bulk-delete', {
      key: f.keys.writeA,
      headers: { 'content-type': 'application/json' },
      body: `{"campaignId":"${campaignA}","campaignId":"${campaignB}","leads":[{"externalId":"${secretExt('b1', 0)}"}]}`,
    });
    expectError(body, 403, 'Forbidden');
    expect((await snapshot()).get(campaignB)).toBe(before.get(campaignB));
  });

  it("HEAD on another tenant's list says no more than GET does", async () => {
    const res = await f.app.inject({
      method: 'HEAD',
      url: `/api/v1/records?campaignId=${f.ids.campaignB}`,
      headers: { 'x-api-key': f.keys.writeA },
    });
    expect(res.statusCode).toBe(404);
    expect(res.body).toBe('');
  });
});
