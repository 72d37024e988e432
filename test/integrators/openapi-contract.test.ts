import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableStores } from '../helpers/db.js';
import { type Fixture, makeFixture, type Reply } from '../helpers/fixture.js';
import { acceptedRetellCall, responseChecker } from './support.js';

const DOC = '/api/v1/openapi.json';

describe.each(await availableStores())('every operation answers as its OpenAPI document says, on %s', (kind) => {
  let f: Fixture;
  let doc: any;
  let checker: ReturnType<typeof responseChecker>;
  const check = (method: string, path: string, res: Reply) => checker.check(method, path, res);
  beforeAll(async () => {
    f = await makeFixture(kind, { env: { BODY_LIMIT_BYTES: '65536', PUBLIC_URL: 'https://leadline.example.com' } });
    doc = (await f.request('GET', DOC, { key: null })).body;
    checker = responseChecker(doc);
  });
  afterAll(() => f.close());

  const awaitingAttempt = async (phoneNumber: string, tag: string) => {
    const created = await f.request('POST', '/api/v1/leads', { body: { campaignId: f.ids.campaignA2, phoneNumber } });
    const [lead] = await f.db.queue
      .claim({ campaignId: f.ids.campaignA2, maxAttempts: 3, workerId: 'w', limit: 50, now: Date.now(), leaseMs: 60_000, openZones: null })
      .then((ls) => ls.filter((l) => l.id === created.body.data.leadId));
    const attemptId = `at_rv_${tag}`;
    await f.db.queue.open([{ attemptId, lead: lead!, phoneNumber, startedAt: Date.now(), deadlineAt: Date.now() + 60_000 }], Date.now());
    await f.db.queue.accept(attemptId, { providerCallId: null, deadlineAt: Date.now() + 60_000 });
    return attemptId;
  };

  it('leads and records: successes and errors', async () => {
    for (const prefix of ['/api/v1/leads', '/api/v1/records']) {
      const c = f.ids.campaignA;
      const n = prefix.endsWith('leads') ? '1' : '2';
      const post = (body: unknown, key?: string | null) => f.request('POST', prefix, { body, key });
      check(
        'POST',
        prefix,
        await post({
          campaignId: c,
          phoneNumber: `+1415555${n}001`,
          externalId: `x${n}`,
          metadata: { a: [1, { b: null }] },
          scheduledFor: '2030-01-01T09:00:00.5+05:30',
          priority: 100,
        }),
      );
      check('POST', prefix, await post({ campaignId: c, phoneNumber: `+1415555${n}002`, scheduledFor: '0001-01-01T00:00:00+00:00' }));
      check('POST', prefix, await post({ campaignId: f.ids.prefetchA, externalId: `pf${n}` }));
      check('POST', prefix, await post({ campaignId: c, externalId: `x${n}` }));
      check('POST', prefix, await post({ campaignId: c }));
      check('POST', prefix, await post({ campaignId: c, externalId: `y${n}` }));
      check('POST', prefix, await post({ campaignId: c, phoneNumber: '+1' }, f.keys.readA));
      check('POST', prefix, await post({ campaignId: c, phoneNumber: '+1' }, null));
      check('POST', prefix, await post({ campaignId: f.ids.campaignA2, phoneNumber: `+1415555${n}009` }, f.keys.restrictedA));
      check('POST', prefix, await f.request('POST', prefix, { body: 'x', headers: { 'content-type': 'text/plain' } }));
      check(
        'POST',
        prefix,
        await f.request('POST', prefix, { body: 'a=1', headers: { 'content-type': 'application/x-www-form-urlencoded' } }),
      );
      check('POST', prefix, await post({ campaignId: c, phoneNumber: '+14155559999', metadata: { x: 'y'.repeat(70_000) } }));

      const bulk = `${prefix}/bulk`;
      check(
        'POST',
        bulk,
        await f.request('POST', bulk, {
          body: { campaignId: c, leads: [{ phoneNumber: `+1415555${n}001` }, { phoneNumber: `+1415555${n}003` }] },
        }),
      );
      check('POST', bulk, await f.request('POST', bulk, { body: { campaignId: c, leads: [] } }));
      check('POST', bulk, await f.request('POST', bulk, { body: { campaignId: 'cp_none', leads: [{ phoneNumber: '+14155550000' }] } }));
      check(
        'POST',
        bulk,
        await f.request('POST', bulk, { key: f.keys.readA, body: { campaignId: c, leads: [{ phoneNumber: '+14155550000' }] } }),
      );

      for (const q of [
        { campaignId: c },
        { campaignId: c, limit: '1' },
        { campaignId: c, status: 'raw' },
        { campaignId: f.ids.prefetchA },
        { campaignId: f.ids.campaignB },
        {},
        { campaignId: c, cursor: 'nope' },
        { campaignId: c, limit: '0' },
      ]) {
        check('GET', prefix, await f.request('GET', prefix, { key: f.keys.readA, query: q as Record<string, string> }));
      }
      const first = await f.request('GET', prefix, { query: { campaignId: c, limit: '1' } });
      check('GET', prefix, await f.request('GET', prefix, { query: { campaignId: c, cursor: first.body.data.cursor } }));
      check('GET', prefix, await f.request('GET', prefix, { key: null, query: { campaignId: c } }));

      check('DELETE', prefix, await f.request('DELETE', prefix, { query: { campaignId: c, phoneNumber: `+1415555${n}003` } }));
      check('DELETE', prefix, await f.request('DELETE', prefix, { query: { campaignId: c, phoneNumber: `+1415555${n}003` } }));
      check('DELETE', prefix, await f.request('DELETE', prefix, { query: { campaignId: c } }));
      check('DELETE', prefix, await f.request('DELETE', prefix, { query: { campaignId: 'cp_none', externalId: 'q' } }));
      check('DELETE', prefix, await f.request('DELETE', prefix, { key: f.keys.readA, query: { campaignId: c, externalId: 'q' } }));

      const bd = `${prefix}/bulk-delete`;
      check(
        'POST',
        bd,
        await f.request('POST', bd, {
          body: { campaignId: c, leads: [{ externalId: `x${n}` }, { externalId: `x${n}` }, { phoneNumber: '+14155550000' }] },
        }),
      );
      check('POST', bd, await f.request('POST', bd, { body: { campaignId: c, leads: [{}] } }));
      check('POST', bd, await f.request('POST', bd, { body: { campaignId: f.ids.campaignB, leads: [{ externalId: 'q' }] } }));
      check('POST', bd, await f.request('POST', bd, { key: null, body: { campaignId: c, leads: [{ externalId: 'q' }] } }));
    }
  });

  it('outcome reports, the do-not-call list, events, health and the document', async () => {
    const op = '/api/v1/attempts/{attemptId}/outcome';
    const id = await awaitingAttempt('+14155557001', 'a');
    const report = (attemptId: string, body: unknown, key?: string | null) =>
      f.request('POST', `/api/v1/attempts/${attemptId}/outcome`, { body, key });
    check('POST', op, await report(id, { success: 'yes', outcome: 'x' }));
    check('POST', op, await report('x'.repeat(101), { success: true, outcome: 'x' }));
    check('POST', op, await report(id, { success: true, outcome: 'x' }, null));
    check('POST', op, await report(id, { success: true, outcome: 'x' }, f.keys.readA));
    check('POST', op, await report(id, { success: true, outcome: 'x' }, f.keys.restrictedA));
    check('POST', op, await report(id, { success: false, outcome: 'busy', reason: 'r', durationSeconds: 3.5 }));
    check('POST', op, await report(id, { success: true, outcome: 'answered' }));
    const id2 = await awaitingAttempt('+14155557002', 'b');
    check('POST', op, await report(id2, { success: false, outcome: 'do-not-call' }));

    const dnc = '/api/v1/dnc';
    check('GET', dnc, await f.request('GET', dnc, {}));
    for (const path of [dnc, `${dnc}/remove`]) {
      check('POST', path, await f.request('POST', path, { body: { phoneNumbers: ['+14155557003', '+14155557003'], reason: 'asked' } }));
      check('POST', path, await f.request('POST', path, { body: { phoneNumbers: ['123'] } }));
      check('POST', path, await f.request('POST', path, { key: f.keys.restrictedA, body: { phoneNumbers: ['+14155557003'] } }));
      check('POST', path, await f.request('POST', path, { key: f.keys.readA, body: { phoneNumbers: ['+14155557003'] } }));
    }
    await f.request('POST', dnc, { body: { phoneNumbers: ['+14155557004'] } });
    for (const q of <Record<string, string>[]>[
      { phoneNumber: '+14155557004' },
      { phoneNumber: '+14155557002' },
      { phoneNumber: '+14155550000' },
      { limit: '1' },
      { phoneNumber: '+1', limit: '1' },
      { cursor: 'x' },
    ]) {
      check('GET', dnc, await f.request('GET', dnc, { query: q }));
    }
    const page = await f.request('GET', dnc, { query: { limit: '1' } });
    check('GET', dnc, await f.request('GET', dnc, { query: { cursor: page.body.data.cursor } }));
    check('GET', dnc, await f.request('GET', dnc, { key: f.keys.restrictedA }));

    const ev = '/api/v1/events';
    // On PostgreSQL an event is readable once every older transaction on the server has ended
    // (docs/events.md, "Order"): other test files' transactions can hold some back for a moment.
    const TYPES = ['lead.created', 'lead.deleted', 'lead.status_changed', 'attempt.started', 'attempt.finished', 'dnc.added'];
    let all: Reply;
    for (let i = 0; ; i++) {
      all = await f.request('GET', ev, { query: { limit: '1000' } });
      const types = new Set(all.body.data.events.map((e: any) => e.type));
      if (TYPES.every((t) => types.has(t)) || i === 50) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    check('GET', ev, all);
    expect(new Set(all.body.data.events.map((e: any) => e.type))).toEqual(new Set(TYPES));
    check('GET', ev, await f.request('GET', ev, { query: { after: all.body.data.cursor } }));
    check('GET', ev, await f.request('GET', ev, { key: f.keys.restrictedA }));
    check('GET', ev, await f.request('GET', ev, { query: { campaignId: f.ids.campaignB } }));
    check('GET', ev, await f.request('GET', ev, { query: { after: 'x' } }));
    check('GET', ev, await f.request('GET', ev, { key: null }));

    check('GET', '/api/health', await f.request('GET', '/api/health', { key: null }));
    check('GET', DOC, await f.request('GET', DOC, { key: null }));
  });

  it("the platforms' signed webhooks", async () => {
    const { post } = await acceptedRetellCall(f, 'rv', '+14155557101');
    const path = '/api/v1/providers/{platform}/events';
    check('POST', path, await post('call_rv', 'wrong'));
    check('POST', path, await post('call_unknown'));
    check('POST', path, await post('call_rv'));
    check('POST', path, await post('call_rv'));
    // a platform leadline does not know is the handler's 404 (docs/providers.md), not a params-schema 400
    const other = await f.request('POST', '/api/v1/providers/vonage/events', {
      key: null,
      body: '{}',
      headers: { 'content-type': 'application/json' },
    });
    expect([other.status, other.body.error]).toEqual([404, 'Not found']);
    check('POST', path, other);
  });
});
