/**
 * The typed client against a real `leadline serve`, and as a package user
 * gets it: `import { createLeadlineClient } from 'leadline'`, in JavaScript
 * and in type-checked TypeScript.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLeadlineClient, type LeadlineClient } from '../../src/index.js';
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

    // two pages through the cursor
    const first = await client.GET('/api/v1/leads', { params: { query: { campaignId, limit: '2' } } });
    expect(first.data!.data).toMatchObject({ count: 2, hasMore: true });
    expect(first.data!.data.leads[0]).toMatchObject({ _id: leadId, externalId: 'c-1', metadata: { name: 'Ann' }, priority: 9, status: 'raw' });
    const second = await client.GET('/api/v1/records', { params: { query: { campaignId, cursor: first.data!.data.cursor } } });
    expect(second.data!.data).toMatchObject({ count: 1, hasMore: false });

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
});

describe('the package entry', () => {
  it('exports createLeadlineClient to JavaScript through package.json "exports"', async () => {
    const { stdout } = await run(process.execPath, [
      '--input-type=module',
      '-e',
      "import * as leadline from 'leadline'; console.log(Object.keys(leadline).join(','), typeof leadline.createLeadlineClient)",
    ]);
    // only the client: a package user does not load the server, the CLI or a database driver
    expect(stdout.trim()).toBe('createLeadlineClient function');
  });

  it('gives TypeScript users checked paths, parameters and bodies', async () => {
    // inside the package (dist/ is build output), so 'leadline' resolves to itself as it would from node_modules
    const dir = mkdtempSync(join('dist', 'consumer-'));
    try {
      writeFileSync(
        join(dir, 'consumer.ts'),
        `import { createLeadlineClient, type Lead, type LeadInput } from 'leadline';
const client = createLeadlineClient({ baseUrl: 'http://127.0.0.1:3000', apiKey: 'll_x' });
export async function firstPage(campaignId: string): Promise<Lead[]> {
  const { data, error } = await client.GET('/api/v1/leads', { params: { query: { campaignId, status: 'raw' } } });
  if (error) throw new Error(error.error);
  return data.data.leads;
}
export const entry: LeadInput = { phoneNumber: '+14155550123', metadata: { name: 'Ann' }, priority: 5 };
// @ts-expect-error no such path
void client.GET('/api/v1/nope');
// @ts-expect-error priority is a number
void client.POST('/api/v1/leads', { body: { campaignId: 'c', phoneNumber: '+14155550123', priority: 'high' } });
// @ts-expect-error campaignId is required
void client.POST('/api/v1/leads/bulk', { body: { leads: [entry] } });
// @ts-expect-error status is one of raw, attempting, exhausted, concluded
void client.GET('/api/v1/records', { params: { query: { campaignId: 'c', status: 'done' } } });
`,
      );
      await run(process.execPath, [
        'node_modules/typescript/bin/tsc',
        '--noEmit',
        '--strict',
        '--module', 'nodenext',
        '--moduleResolution', 'nodenext',
        '--target', 'es2022',
        '--types', 'node',
        '--skipLibCheck',
        join(dir, 'consumer.ts'),
      ]).catch((err: { stdout: string }) => {
        throw new Error(`tsc failed:\n${err.stdout}`);
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
