/**
 * Metadata is returned exactly as given. JSON.parse reads a number past a
 * double's range (1e400) as Infinity, which JSON.stringify writes as null: the
 * lead was created with `{"big":null}`. Such a body is now a 400 that stores
 * nothing, on create and bulk create alike.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableStores } from '../helpers/db.js';
import { type Fixture, makeFixture } from '../helpers/fixture.js';

const MESSAGE = 'metadata must be a JSON object of at most 16 KiB, its numbers within ±1.8e308';

describe.each(await availableStores())('metadata numbers out of range on %s', (kind) => {
  let f: Fixture;
  beforeAll(async () => {
    f = await makeFixture(kind);
  });
  afterAll(() => f.close());

  const post = (url: string, payload: string) =>
    f.app.inject({ method: 'POST', url, payload, headers: { 'x-api-key': f.keys.writeA, 'content-type': 'application/json' } });
  const leadsOf = async (campaignId: string) => (await f.request('GET', '/api/v1/leads', { query: { campaignId } })).body.data.leads;

  it('create: 400, nothing stored', async () => {
    const c = f.ids.campaignA;
    const res = await post('/api/v1/leads', `{"campaignId":"${c}","phoneNumber":"+14155550201","metadata":{"big":1e400}}`);
    expect({ status: res.statusCode, body: res.json() }).toEqual({ status: 400, body: { success: false, data: null, error: MESSAGE } });
    expect(await leadsOf(c)).toEqual([]);
  });

  it('bulk create: 400 naming the entry, nothing stored', async () => {
    const c = f.ids.campaignA2;
    const leads = '[{"phoneNumber":"+14155550202"},{"phoneNumber":"+14155550203","metadata":{"a":[{"b":-1e400}]}}]';
    const res = await post('/api/v1/leads/bulk', `{"campaignId":"${c}","leads":${leads}}`);
    expect({ status: res.statusCode, body: res.json() }).toEqual({
      status: 400,
      body: { success: false, data: null, error: `leads[1]: ${MESSAGE}` },
    });
    expect(await leadsOf(c)).toEqual([]);
  });

  it('the largest double is kept as sent', async () => {
    const c = f.ids.campaignA;
    const res = await post('/api/v1/leads', `{"campaignId":"${c}","phoneNumber":"+14155550204","metadata":{"big":1.7976931348623157e308}}`);
    expect(res.statusCode).toBe(201);
    expect((await leadsOf(c))[0].metadata).toEqual({ big: 1.7976931348623157e308 });
  });
});
