/**
 * The typed client (the @leadline/client workspace package, packages/client)
 * against a real `leadline serve`. client-package.test.ts installs it from its
 * tarball the way an integrator does.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createLeadlineClient, type LeadlineClient } from '@leadline/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableStores } from '../helpers/db.js';
import { type SeededServer, startSeededServer } from './server.js';

const run = promisify(execFile);

describe.each(await availableStores())('the typed client against a real server on %s', (kind) => {
  let server: SeededServer;
  let client: LeadlineClient;
  beforeAll(async () => {
    server = await startSeededServer(kind);
    client = createLeadlineClient({ baseUrl: `${server.url}/`, apiKey: server.writeKey });
  });
  afterAll(() => server?.stop());

  it('runs all five operations under both path families', async () => {
    const campaignId = server.campaignId;
    const created = await client.POST('/api/v1/leads', {
      body: { campaignId, phoneNumber: '+14155550800', externalId: 'c-1', metadata: { name: 'Ann' }, priority: 9 },
    });
    expect(created.response.status).toBe(201);
    const leadId = created.data!.data.leadId;

    const bulk = await client.POST('/api/v1/records/bulk', {
      body: { campaignId, leads: [{ phoneNumber: '+14155550801' }, { phoneNumber: '+14155550800' }, { phoneNumber: '+14155550802' }] },
    });
    expect(bulk.data!.data).toMatchObject({ created: 2, skipped: 1, skippedIdentifiers: ['+14155550800'] });

    // two pages through the cursor; limit is a number (the document says integer)
    const first = await client.GET('/api/v1/leads', { params: { query: { campaignId, limit: 2 } } });
    expect(first.data!.data).toMatchObject({ count: 2, hasMore: true });
    expect(first.data!.data.leads[0]).toMatchObject({
      _id: leadId,
      externalId: 'c-1',
      metadata: { name: 'Ann' },
      priority: 9,
      status: 'raw',
    });
    const second = await client.GET('/api/v1/records', { params: { query: { campaignId, cursor: first.data!.data.cursor } } });
    expect(second.data!.data).toMatchObject({ count: 1, hasMore: false });
    const all = await client.GET('/api/v1/leads', { params: { query: { campaignId, limit: 8000 } } });
    expect(all.response.url).toMatch(/[?&]limit=8000(&|$)/);
    expect(all.data!.data).toMatchObject({ count: 3, hasMore: false });

    // the client encodes the plus sign of a phone number in the query
    const deleted = await client.DELETE('/api/v1/leads', { params: { query: { campaignId, phoneNumber: '+14155550801' } } });
    expect(deleted.data!.data).toEqual({ deleted: true });
    const bulkDeleted = await client.POST('/api/v1/leads/bulk-delete', {
      body: { campaignId, leads: [{ externalId: 'c-1' }, { phoneNumber: '+14155550801' }] },
    });
    expect(bulkDeleted.data!.data).toEqual({ deleted: 1, notFound: 1, deletedIdentifiers: ['c-1'], notFoundIdentifiers: ['+14155550801'] });
  });

  it('returns the error envelope, typed, with the status', async () => {
    const campaignId = server.campaignId;
    await client.POST('/api/v1/leads', { body: { campaignId, phoneNumber: '+14155550810' } });
    const duplicate = await client.POST('/api/v1/leads', { body: { campaignId, phoneNumber: '+14155550810' } });
    expect(duplicate.response.status).toBe(409);
    expect(duplicate.data).toBeUndefined();
    expect(duplicate.error).toEqual({ success: false, data: null, error: 'Lead with phone number +14155550810 already exists' });

    const reader = createLeadlineClient({ baseUrl: server.url, apiKey: server.readKey });
    const refused = await reader.POST('/api/v1/leads', { body: { campaignId, phoneNumber: '+14155550811' } });
    expect([refused.response.status, refused.error?.error]).toEqual([403, 'Insufficient permissions']);
    const stranger = createLeadlineClient({ baseUrl: server.url, apiKey: 'll_not_a_key' });
    const denied = await stranger.GET('/api/v1/leads', { params: { query: { campaignId } } });
    expect([denied.response.status, denied.error?.error]).toEqual([401, 'Invalid or inactive API key']);
    expect(denied.response.headers.get('x-ratelimit-limit')).toMatch(/^\d+$/);
  });

  it('keeps headers given as a Headers object beside the key', async () => {
    // a pass-through to the real fetch, to read what was sent
    let sent: Headers | undefined;
    const traced = createLeadlineClient({
      baseUrl: server.url,
      apiKey: server.readKey,
      headers: new Headers({ 'x-request-id': 'trace-1' }),
      fetch: (request: Request) => {
        sent = request.headers;
        return fetch(request);
      },
    });
    const page = await traced.GET('/api/v1/leads', { params: { query: { campaignId: server.campaignId, limit: 1 } } });
    expect(page.response.status).toBe(200);
    expect([sent?.get('x-request-id'), sent?.get('x-api-key')]).toEqual(['trace-1', server.readKey]);
  });
});

describe('the leadline package entry', () => {
  it('re-exports the client, and only the client, to JavaScript through package.json "exports"', async () => {
    const { stdout } = await run(process.execPath, [
      '--input-type=module',
      '-e',
      "import * as leadline from 'leadline'; import * as client from '@leadline/client'; console.log(Object.keys(leadline).join(','), leadline.createLeadlineClient === client.createLeadlineClient)",
    ]);
    // a package user does not load the server, the CLI or a database driver
    expect(stdout.trim()).toBe('createLeadlineClient true');
  });
});
