/**
 * The importer's behaviour under a server that pushes back, in process: the
 * real app (through app.inject), its real rate limiter on the fixture's clock,
 * and a sleep that advances that clock instead of waiting.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createLeadlineClient } from '@leadline/client';
import { EncodingError } from '../../src/integrations/csv-source.js';
import { importCsv } from '../../src/integrations/importer.js';
import { ServerUnavailableError } from '../../src/integrations/retry.js';
import { type Fixture, makeFixture } from '../helpers/fixture.js';
import { injectFetch } from './support.js';

const dir = mkdtempSync(join(tmpdir(), 'leadline-importer-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let f: Fixture | undefined;
afterEach(async () => {
  await f?.close();
  f = undefined;
});

function csv(name: string, rows: number, extra: (i: number) => string = () => ''): string {
  const path = join(dir, name);
  const lines = ['phoneNumber,note'];
  for (let i = 1; i <= rows; i++) lines.push(`+1415${String(i).padStart(7, '0')},${extra(i)}`);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

describe('importCsv', () => {
  it('waits out each 429 exactly as long as Retry-After says, then carries on', async () => {
    f = await makeFixture('sqlite', { rateLimit: { bulkPerMinute: 2 } });
    const fixture = f;
    const client = createLeadlineClient({ baseUrl: 'http://leadline.test', apiKey: f.keys.writeA, fetch: injectFetch(f.app) });
    const waits: number[] = [];
    const retryAfters: number[] = [];
    const summary = await importCsv({
      file: csv('limited.csv', 50),
      campaignId: f.ids.campaignA,
      client,
      rejectsPath: join(dir, 'limited.rejects.csv'),
      chunkSize: 10,
      retry: {
        sleep: async (ms) => {
          waits.push(ms);
          fixture.clock.advance(ms);
        },
        onWait: (reason) => retryAfters.push(Number(/waiting (\d+) s/.exec(reason)?.[1])),
      },
    });
    expect(summary).toMatchObject({ rows: 50, created: 50, rejected: 0 });
    // 5 chunks at 2 per minute: two waits of about a minute each
    expect(waits.length).toBe(2);
    for (const ms of waits) expect(ms).toBeGreaterThan(50_000);
    expect(retryAfters.every((s) => s >= 50 && s <= 61)).toBe(true);
  });

  it('halves a chunk the server finds too large, and rejects a row too large on its own', async () => {
    f = await makeFixture('sqlite', { env: { BODY_LIMIT_BYTES: '4096' } });
    const client = createLeadlineClient({ baseUrl: 'http://leadline.test', apiKey: f.keys.writeA, fetch: injectFetch(f.app) });
    const summary = await importCsv({
      file: csv('large.csv', 40, (i) => (i === 7 ? 'x'.repeat(5000) : 'y'.repeat(200))),
      campaignId: f.ids.campaignA,
      client,
      rejectsPath: join(dir, 'large.rejects.csv'),
    });
    expect(summary).toMatchObject({ rows: 40, created: 39, rejected: 1 });
    expect(summary.rejections).toEqual([{ line: 8, reason: 'Request body is larger than 4096 bytes' }]);
  });

  it('retries a server that is briefly unavailable, and gives up (state kept) when it stays down', async () => {
    f = await makeFixture('sqlite');
    const inject = injectFetch(f.app);
    let failures = 2;
    const flaky = async (request: Request) => (failures-- > 0 ? new Response('{}', { status: 503 }) : inject(request));
    const sleep = async () => undefined;
    const base = { campaignId: f.ids.campaignA, rejectsPath: join(dir, 'flaky.rejects.csv'), retry: { sleep } };
    const ok = await importCsv({
      ...base,
      file: csv('flaky.csv', 5),
      client: createLeadlineClient({ baseUrl: 'http://x', apiKey: f.keys.writeA, fetch: flaky }),
    });
    expect(ok.created).toBe(5);

    // the first chunk is acknowledged, then the server goes away for good
    let calls = 0;
    const goesDown = async (request: Request) => {
      if (calls++ === 0) return inject(request);
      throw new TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } });
    };
    const file = csv('down.csv', 2500);
    const down = { ...base, campaignId: f.ids.campaignA2, file, chunkSize: 1000, rejectsPath: join(dir, 'down.rejects.csv') };
    const client = (fetch: (r: Request) => Promise<Response>) =>
      createLeadlineClient({ baseUrl: 'http://x', apiKey: f!.keys.writeA, fetch });
    await expect(importCsv({ ...down, client: client(goesDown) })).rejects.toThrow(
      new ServerUnavailableError('the server did not answer after 6 attempts (ECONNREFUSED)'),
    );
    expect(JSON.parse(readFileSync(join(dir, 'down.rejects.state.json'), 'utf8'))).toMatchObject({ rows: 1000, line: 1001, created: 1000 });
    const resumed = await importCsv({ ...down, client: client(inject) });
    expect(resumed).toMatchObject({ rows: 2500, created: 2500, skipped: 0, resumedAfterLine: 1001 });
  });

  it('a wrong key says the key was refused, and keeps the rejects file of the run before', async () => {
    f = await makeFixture('sqlite');
    const fetch = injectFetch(f.app);
    const file = join(dir, 'key.csv');
    writeFileSync(file, 'phoneNumber,note\n+14155550100,ok\nnot-a-phone,bad\n');
    const rejectsPath = join(dir, 'key.rejects.csv');
    const client = (apiKey: string) => createLeadlineClient({ baseUrl: 'http://x', apiKey, fetch });
    const first = await importCsv({ file, campaignId: f.ids.campaignA, client: client(f.keys.writeA), rejectsPath });
    expect(first).toMatchObject({ created: 1, rejected: 1, rejectsPath });
    const rejects = readFileSync(rejectsPath, 'utf8');

    await expect(importCsv({ file, campaignId: f.ids.campaignA, client: client(f.keys.revokedA), rejectsPath })).rejects.toThrow(
      `the server refused the key: HTTP 401: Invalid or inactive API key (no row was imported; ${rejectsPath} is kept)`,
    );
    expect(readFileSync(rejectsPath, 'utf8')).toBe(rejects);
    await expect(importCsv({ file, campaignId: f.ids.campaignA, client: client(f.keys.readA), rejectsPath })).rejects.toThrow(
      'the server refused the key: HTTP 403: Insufficient permissions',
    );
    expect(readFileSync(rejectsPath, 'utf8')).toBe(rejects);
  });

  it('reports the line a rejected row starts on after a quoted field holding CRLF', async () => {
    f = await makeFixture('sqlite');
    const file = join(dir, 'crlf.csv');
    // line 1 the header; lines 2-3 one row (a quoted CRLF, as Excel writes a cell with a line break); line 4; line 5 the bad row
    writeFileSync(file, 'phoneNumber,note\r\n+14155550100,"a\r\nb"\r\n+14155550101,x\r\nbad,y\r\n');
    const rejectsPath = join(dir, 'crlf.rejects.csv');
    const client = createLeadlineClient({ baseUrl: 'http://x', apiKey: f.keys.writeA, fetch: injectFetch(f.app) });
    const summary = await importCsv({ file, campaignId: f.ids.campaignA, client, rejectsPath });
    expect(summary).toMatchObject({ created: 2, rejected: 1 });
    expect(summary.rejections.map((r) => r.line)).toEqual([5]);
    expect(readFileSync(rejectsPath, 'utf8')).toMatch(/\n5,/);
  });

  it('writes a rejected row as the file had it: a cell guarded there (as export writes =1+1) is guarded once, not twice', async () => {
    f = await makeFixture('sqlite');
    const file = join(dir, 'guarded.csv');
    writeFileSync(file, "phoneNumber,externalId,priority\n+14155559999,'=1+1,500\n");
    const rejectsPath = join(dir, 'guarded.rejects.csv');
    const client = createLeadlineClient({ baseUrl: 'http://x', apiKey: f.keys.writeA, fetch: injectFetch(f.app) });
    expect(await importCsv({ file, campaignId: f.ids.campaignA, client, rejectsPath })).toMatchObject({ rejected: 1 });
    const [header, row] = readFileSync(rejectsPath, 'utf8').trim().split('\n');
    expect(header).toBe('rejectedLine,rejectReason,phoneNumber,externalId,priority');
    expect(row).toMatch(/,\+14155559999,'=1\+1,500$/);
    // fixed and imported as it is, it stores what the first import would have: =1+1
    writeFileSync(rejectsPath, readFileSync(rejectsPath, 'utf8').replace(',500', ',5'));
    expect(await importCsv({ file: rejectsPath, campaignId: f.ids.campaignA, client, rejectsPath: join(dir, 'again.csv') })).toMatchObject({
      created: 1,
    });
    const stored = await f.db.kysely
      .selectFrom('leads')
      .select('external_id')
      .where('phone_number', '=', '+14155559999')
      .executeTakeFirst();
    expect(stored?.external_id).toBe('=1+1');
  });

  it('stops at bytes that are not UTF-8, keeps what was acknowledged, and imports the fixed file with --restart', async () => {
    f = await makeFixture('sqlite');
    const client = createLeadlineClient({ baseUrl: 'http://x', apiKey: f.keys.writeA, fetch: injectFetch(f.app) });
    // 3000 rows of about 56 bytes: the file is read 64 KiB at a time, so chunks are acknowledged before the bad byte is read
    const file = csv('latin1.csv', 3000, (i) => (i === 2900 ? 'Jos\u00e9' : 'x'.repeat(40)));
    const text = readFileSync(file, 'utf8');
    writeFileSync(file, Buffer.from(text, 'latin1'));
    const offset = Buffer.byteLength(text.slice(0, text.indexOf('Jos\u00e9') + 3));
    const opts = { file, campaignId: f.ids.campaignA, client, rejectsPath: join(dir, 'latin1.rejects.csv'), chunkSize: 1000 };
    await expect(importCsv(opts)).rejects.toThrow(
      new EncodingError(`${file} is not UTF-8: byte 0xE9 at offset ${offset} (line 2901) is not valid UTF-8 there`),
    );
    const list = async (): Promise<{ metadata?: { note?: string } }[]> =>
      (await f!.request('GET', '/api/v1/leads', { query: { campaignId: opts.campaignId, limit: '8000' } })).body.data.leads;
    // whole chunks only (how many depends on how far the file was read ahead), and nothing of the bad row's
    const stored = (await list()).length;
    expect([1000, 2000]).toContain(stored);
    expect(JSON.parse(readFileSync(join(dir, 'latin1.rejects.state.json'), 'utf8'))).toMatchObject({ rows: stored, created: stored });

    writeFileSync(file, text);
    const fixed = await importCsv({ ...opts, restart: true });
    expect(fixed).toMatchObject({ rows: 3000, created: 3000 - stored, skipped: stored });
    expect((await list()).filter((l) => l.metadata?.note === 'Jos\u00e9').length).toBe(1);
  });
});
