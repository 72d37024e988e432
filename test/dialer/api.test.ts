/** GET /api/v1/leads shows the statuses and attempts the dialer produced. */
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateCampaign } from '../../src/campaigns/service.js';
import { Dialer } from '../../src/dialer/worker.js';
import { listAll, ok, seed } from '../api/support.js';
import { availableStores } from '../helpers/db.js';
import { type Fixture, makeFixture } from '../helpers/fixture.js';
import { type Stub, startStub } from './http-stub.js';

/** how each lead's calls go, by externalId, attempt after attempt */
const SCRIPT: Record<string, boolean[]> = { wins: [true], loses: [false, false], 'second-time': [false, true] };

describe.each(await availableStores())('the list endpoint after dialing, on %s', (kind) => {
  let f: Fixture;
  let phone: Stub;
  beforeAll(async () => {
    f = await makeFixture(kind);
    phone = await startStub(null, (req) => {
      const success = SCRIPT[req.body.externalId]?.[req.body.attempt - 1] ?? false;
      return { body: { success, outcome: success ? 'answered' : 'no-answer' } };
    });
  });
  afterAll(async () => {
    await phone?.close();
    await f?.close();
  });

  it('reports each lead as the dialer left it', async () => {
    const c = f.ids.campaignA2;
    await updateCampaign(f.db, c, {
      hours: 'mon-sun 00:00-24:00',
      local_window: '00:00-24:00',
      regional_rules: 'off',
      max_attempts: 2,
      retry_delay_ms: 0,
      provider: 'webhook',
      provider_url: phone.url,
    });
    const ids = await seed(f, c, [
      { phoneNumber: '+442079461000', externalId: 'wins' },
      { phoneNumber: '+442079461001', externalId: 'loses' },
      { phoneNumber: '+442079461002', externalId: 'second-time', priority: 5 },
      { phoneNumber: '+442079461003', externalId: 'later', scheduledFor: '2099-01-01T00:00:00Z' },
    ]);
    for (let round = 0; round < 3; round++) {
      await new Dialer({ store: f.db, logger: pino({ level: 'silent' }), campaignIds: [c] }).runOnce();
    }
    expect(phone.requests).toHaveLength(5);
    const leads = Object.fromEntries((await listAll(f, c)).map((l: any) => [l.externalId, l]));
    expect(leads.wins).toMatchObject({ status: 'concluded', attempts: 1 });
    expect(leads.loses).toMatchObject({ status: 'exhausted', attempts: 2 });
    expect(leads['second-time']).toMatchObject({ status: 'concluded', attempts: 2 });
    expect(leads.later).toMatchObject({ status: 'raw', attempts: 0 });
    // The dialer's own columns stay out of the API's lead.
    expect(Object.keys(leads.wins).sort()).toEqual([
      '_creationTime',
      '_id',
      'attempts',
      'campaignId',
      'externalId',
      'metadata',
      'phoneNumber',
      'priority',
      'status',
    ]);
    const exhausted = ok(await f.request('GET', '/api/v1/leads', { query: { campaignId: c, status: 'exhausted' } }));
    expect(exhausted.leads.map((l: any) => l._id)).toEqual([ids[1]]);
    const concluded = ok(await f.request('GET', '/api/v1/records', { query: { campaignId: c, status: 'concluded' } }));
    expect(concluded.leads.map((l: any) => l.externalId)).toEqual(['wins', 'second-time']);
  });
});
