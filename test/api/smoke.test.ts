import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableStores } from '../helpers/db.js';
import { type Fixture, isEnvelope, makeFixture } from '../helpers/fixture.js';

describe.each(await availableStores())('lead API basics on %s', (kind) => {
  let f: Fixture;
  beforeAll(async () => {
    f = await makeFixture(kind);
  });
  afterAll(() => f.close());

  it('creates, lists, bulk-creates and deletes', async () => {
    const c = f.ids.campaignA;
    const created = await f.request('POST', '/api/v1/leads', {
      body: { campaignId: c, phoneNumber: '+14155550100', externalId: 'x1', metadata: { a: [1, 'b'] }, priority: 7 },
    });
    expect(created.status).toBe(201);
    expect(created.body.data.leadId).toMatch(/^ld_/);
    const bulk = await f.request('POST', '/api/v1/leads/bulk', {
      body: {
        campaignId: c,
        leads: [{ phoneNumber: '+14155550101' }, { externalId: 'x1', phoneNumber: '+14155550199' }, { phoneNumber: '+14155550101' }],
      },
    });
    expect(bulk.status).toBe(200);
    expect(bulk.body.data).toMatchObject({ created: 1, skipped: 2, skippedIdentifiers: ['x1', '+14155550101'] });
    const list = await f.request('GET', `/api/v1/records?campaignId=${c}`);
    expect(list.status).toBe(200);
    expect(isEnvelope(list.body)).toBe(true);
    expect(list.body.data.count).toBe(2);
    expect(list.body.data.leads[0]).toEqual({
      _id: created.body.data.leadId,
      campaignId: c,
      phoneNumber: '+14155550100',
      externalId: 'x1',
      metadata: { a: [1, 'b'] },
      status: 'raw',
      priority: 7,
      attempts: 0,
      _creationTime: expect.any(Number),
    });
    const del = await f.request('POST', '/api/v1/leads/bulk-delete', {
      body: { campaignId: c, leads: [{ externalId: 'x1' }, { phoneNumber: '+14155550100' }, { phoneNumber: '+14155550101' }] },
    });
    expect(del.body.data).toEqual({
      deleted: 2,
      notFound: 1,
      deletedIdentifiers: ['x1', '+14155550101'],
      notFoundIdentifiers: ['+14155550100'],
    });
  });
});
