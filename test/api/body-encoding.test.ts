/**
 * A JSON body is UTF-8 (RFC 8259, 8.1). Bytes that are not valid UTF-8 (a
 * Latin-1 client's "José", é = 0xE9) are refused as not valid JSON, whatever
 * charset the Content-Type names: decoded as they were before, each invalid
 * byte became U+FFFD, so "José" was stored as "Jos\uFFFD" and "Josè" was then
 * refused as its duplicate (or, in a bulk, skipped).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableStores } from '../helpers/db.js';
import { type Fixture, makeFixture } from '../helpers/fixture.js';

const NOT_JSON = { success: false, data: null, error: 'Request body is not valid JSON' };

describe.each(await availableStores())('a body that is not valid UTF-8 on %s', (kind) => {
  let f: Fixture;
  beforeAll(async () => {
    f = await makeFixture(kind);
  });
  afterAll(() => f.close());

  const latin1 = (text: string) => Buffer.from(text, 'latin1');
  const post = (url: string, payload: Buffer, contentType = 'application/json') =>
    f.app.inject({ method: 'POST', url, payload, headers: { 'x-api-key': f.keys.writeA, 'content-type': contentType } });
  const leadsOf = async (campaignId: string) => (await f.request('GET', '/api/v1/leads', { query: { campaignId } })).body.data.leads;

  it('create: 400, nothing stored', async () => {
    const c = f.ids.campaignA;
    for (const [ext, phone] of [
      ['José', '+14155550101'],
      ['Josè', '+14155550102'],
    ]) {
      const res = await post('/api/v1/leads', latin1(`{"campaignId":"${c}","externalId":"${ext}","phoneNumber":"${phone}"}`));
      expect({ status: res.statusCode, body: res.json() }).toEqual({ status: 400, body: NOT_JSON });
    }
    expect(await leadsOf(c)).toEqual([]);
  });

  it('a charset named in the Content-Type changes nothing: the bytes must be UTF-8', async () => {
    const c = f.ids.campaignA2;
    const body = latin1(`{"campaignId":"${c}","externalId":"Zoë","phoneNumber":"+14155550103"}`);
    const res = await post('/api/v1/leads', body, 'application/json; charset=iso-8859-1');
    expect({ status: res.statusCode, body: res.json() }).toEqual({ status: 400, body: NOT_JSON });
    expect(await leadsOf(c)).toEqual([]);
  });

  it('bulk create: 400, nothing created (two distinct leads are not collapsed into one)', async () => {
    const c = f.ids.prefetchA;
    const body = latin1(
      `{"campaignId":"${c}","leads":[{"externalId":"Müller","phoneNumber":"+14155550111"},{"externalId":"Mäller","phoneNumber":"+14155550112"}]}`,
    );
    const res = await post('/api/v1/leads/bulk', body);
    expect({ status: res.statusCode, body: res.json() }).toEqual({ status: 400, body: NOT_JSON });
    expect(await leadsOf(c)).toEqual([]);
  });

  it('the same text sent as UTF-8 is stored exactly as given', async () => {
    const c = f.ids.campaignA2;
    const res = await post('/api/v1/leads', Buffer.from(`{"campaignId":"${c}","externalId":"Zoë 😀","phoneNumber":"+14155550104"}`));
    expect(res.statusCode).toBe(201);
    expect((await leadsOf(c)).map((l: { externalId: string }) => l.externalId)).toEqual(['Zoë 😀']);
  });
});
