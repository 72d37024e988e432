/**
 * `leadline import` and `leadline export` as an integrator runs them: child
 * processes of the built CLI against a real `leadline serve`.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableStores } from '../helpers/db.js';
import { BIN } from '../helpers/server-process.js';
import { type SeededServer, startSeededServer } from './server.js';

const dir = mkdtempSync(join(tmpdir(), 'leadline-import-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}
function cli(args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}
const remote = (s: SeededServer, key = s.writeKey) => ['--url', s.url, '--key', key];
const records = (csv: string) => parse(csv, { columns: true }) as Record<string, string>[];

const CSV = `Phone,externalId,priority,scheduledFor,name,notes
+14155550900,e-1,5,2030-01-02T09:00:00-05:00,Ann,"likes ""quotes"", commas"
(415) 555-0901,@e-2,,,Bob,"=HYPERLINK(""http://evil.example"",""click"")"
+14155550902,,101,,Cy,priority out of range
not-a-phone,e-4,,,Di,bad phone
+14155550900,e-1,,,Ann again,a duplicate of line 2
+14155550905,e-5,1,2030-01-02T09:00:00,Ed,no zone
,e-6,,,Fay,externalId only: the campaign has no predial function
+14155550907,-42,0,,Gus,"a note
over two lines"
+14155550908,,,,Hal,
`;

describe.each(await availableStores())('import and export against a running server on %s', (kind) => {
  let server: SeededServer;
  beforeAll(async () => {
    server = await startSeededServer(kind);
  });
  afterAll(() => server?.stop());

  it('imports good rows, skips duplicates, rejects bad rows with line and reason, and exports what it stored', async () => {
    const file = join(dir, `${kind}-leads.csv`);
    writeFileSync(file, CSV);
    const run = await cli([
      'import',
      file,
      '--campaign',
      server.campaignId,
      ...remote(server),
      '--map',
      'Phone=phoneNumber',
      '--country',
      'US',
      '--json',
    ]);
    expect(run.stderr).toMatch(/rows\/s, ETA/); // piped: plain progress lines
    expect(run.code).toBe(0);
    const summary = JSON.parse(run.stdout);
    expect(summary).toMatchObject({ rows: 9, created: 4, skipped: 1, rejected: 4, resumedAfterLine: null });
    expect(summary.rejections).toEqual([
      { line: 4, reason: 'priority must be an integer from 0 to 100; got "101"' },
      { line: 5, reason: expect.stringMatching(/^phoneNumber "not-a-phone" is not a valid US number: give it in E\.164/) },
      { line: 7, reason: 'scheduledFor must be an ISO 8601 timestamp with a timezone (Z or ±hh:mm); got "2030-01-02T09:00:00"' },
      { line: 8, reason: 'Campaign has no predial function configured; phoneNumber is required' }, // refused by the server
    ]);
    const rejects = records(readFileSync(summary.rejectsPath, 'utf8'));
    expect(rejects.map((r) => [r.rejectedLine, r.Phone, r.name])).toEqual([
      ['4', '+14155550902', 'Cy'],
      ['5', 'not-a-phone', 'Di'],
      ['7', '+14155550905', 'Ed'],
      ['8', '', 'Fay'],
    ]);
    expect(existsSync(summary.rejectsPath.replace(/\.csv$/, '.state.json'))).toBe(false);

    const csv = await cli(['export', '--campaign', server.campaignId, ...remote(server, server.readKey)]);
    expect(csv.code).toBe(0);
    const exported = records(csv.stdout);
    expect(exported.map((r) => [r.phoneNumber, r.externalId, r.priority, r.scheduledFor, r.status, JSON.parse(r.metadata!)])).toEqual([
      ['+14155550900', 'e-1', '5', '2030-01-02T14:00:00.000Z', 'raw', { name: 'Ann', notes: 'likes "quotes", commas' }],
      // normalised to E.164; the externalId cell guarded against formula injection
      ['+14155550901', "'@e-2", '0', '', 'raw', { name: 'Bob', notes: '=HYPERLINK("http://evil.example","click")' }],
      ['+14155550907', '-42', '0', '', 'raw', { name: 'Gus', notes: 'a note\nover two lines' }],
      ['+14155550908', '', '0', '', 'raw', { name: 'Hal' }],
    ]);
    for (const row of exported)
      expect(Object.values(row).every((cell) => !/^[=+\-@\t\r]/.test(cell) || /^[+-]?\d+$/.test(cell))).toBe(true);

    const ndjson = await cli(['export', '--campaign', server.campaignId, ...remote(server), '--format', 'ndjson']);
    const leads = ndjson.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(leads.map((l) => l._id)).toEqual(exported.map((r) => r._id));
    expect(leads[1]).toMatchObject({ externalId: '@e-2', metadata: { name: 'Bob' } });
    expect(leads[3]).not.toHaveProperty('externalId');

    // An export imports back as it was: the guard is undone, metadata read from its JSON column.
    const again = join(dir, `${kind}-export.csv`);
    writeFileSync(again, csv.stdout);
    const reimport = await cli(['import', again, '--campaign', server.prefetchCampaignId, ...remote(server), '--json']);
    expect(JSON.parse(reimport.stdout)).toMatchObject({ rows: 4, created: 4, rejected: 0, rejectsPath: null });
    const copy = await cli(['export', '--campaign', server.prefetchCampaignId, ...remote(server), '--format', 'ndjson']);
    const strip = ({ _id, campaignId, _creationTime, ...rest }: Record<string, unknown>) => rest;
    expect(
      copy.stdout
        .trim()
        .split('\n')
        .map((line) => strip(JSON.parse(line))),
    ).toEqual(leads.map(strip));
  });

  it('refuses unusable input with exit 2 before sending anything', async () => {
    const file = join(dir, `${kind}-cols.csv`);
    writeFileSync(file, 'name,company\nAnn,Acme\n');
    const noIdentifier = await cli(['import', file, '--campaign', server.campaignId, ...remote(server)]);
    expect([noIdentifier.code, noIdentifier.stderr]).toEqual([2, expect.stringContaining('no phoneNumber or externalId column')]);
    const badMap = await cli(['import', file, '--campaign', server.campaignId, ...remote(server), '--map', 'nope=phoneNumber']);
    expect([badMap.code, badMap.stderr]).toEqual([2, expect.stringContaining('the CSV has no column "nope"')]);
    const noKey = await cli(['import', file, '--campaign', server.campaignId, '--url', server.url]);
    expect([noKey.code, noKey.stderr]).toEqual([2, expect.stringContaining('--key')]);
    // a repeated header would keep only its last column's values
    writeFileSync(file, 'phoneNumber,note,note\n+14155550110,first,second\n');
    const twice = await cli(['import', file, '--campaign', server.campaignId, ...remote(server)]);
    expect([twice.code, twice.stderr]).toEqual([2, expect.stringContaining('the CSV has column "note" twice (columns 2 and 3)')]);
  });

  it('exits 1, naming the byte, on a file that is not UTF-8, and stores nothing garbled', async () => {
    const file = join(dir, `${kind}-latin1.csv`);
    writeFileSync(file, Buffer.concat([Buffer.from('phoneNumber,name\n+14155550120,Jos'), Buffer.from([0xe9]), Buffer.from('\n')]));
    const run = await cli(['import', file, '--campaign', server.campaignId, ...remote(server)]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`${file} is not UTF-8: byte 0xE9 at offset 33 (line 2) is not valid UTF-8 there`);
    expect(run.stderr).toContain('save it as UTF-8');
    const exported = await cli(['export', '--campaign', server.campaignId, ...remote(server), '--format', 'ndjson']);
    expect(exported.stdout).not.toContain('+14155550120');
  });

  it('reads `a, b` style files as meant, and keeps the spaces a quoted externalId holds through export and import', async () => {
    const leadsOf = async (campaignId: string) =>
      (
        await (
          await fetch(`${server.url}/api/v1/leads?campaignId=${campaignId}&limit=8000`, { headers: { 'x-api-key': server.readKey } })
        ).json()
      ).data.leads as { phoneNumber: string; externalId?: string; priority: number }[];
    const spaced = join(dir, `${kind}-spaced.csv`);
    writeFileSync(spaced, 'phoneNumber, externalId, priority\n+14155550301, crm-301, 7\n');
    expect((await cli(['import', spaced, '--campaign', server.campaignId, ...remote(server), '--json'])).code).toBe(0);
    const lead = (await leadsOf(server.campaignId)).find((l) => l.phoneNumber === '+14155550301');
    expect({ externalId: lead?.externalId, priority: lead?.priority }).toEqual({ externalId: 'crm-301', priority: 7 });
    // The API stores " crm 302 " as sent; export quotes it, so import (which trims unquoted cells) keeps it.
    const created = await fetch(`${server.url}/api/v1/leads`, {
      method: 'POST',
      headers: { 'x-api-key': server.writeKey, 'content-type': 'application/json' },
      body: JSON.stringify({ campaignId: server.campaignId, phoneNumber: '+14155550302', externalId: ' crm 302 ' }),
    });
    expect(created.status).toBe(201);
    const file = join(dir, `${kind}-roundtrip.csv`);
    const exported = await cli(['export', '--campaign', server.campaignId, ...remote(server, server.readKey), '--out', file]);
    expect(exported.code).toBe(0);
    expect(readFileSync(file, 'utf8')).toContain('," crm 302 ",');
    expect((await cli(['import', file, '--campaign', server.prefetchCampaignId, ...remote(server), '--json'])).code).toBe(0);
    expect((await leadsOf(server.prefetchCampaignId)).find((l) => l.phoneNumber === '+14155550302')?.externalId).toBe(' crm 302 ');
  });

  it('export --out replaces the file only once the export is complete; to stdout, a refused export writes nothing', async () => {
    // not even the header: `leadline export … > leads.csv` must not leave a valid-looking empty export
    const unknown = await cli(['export', '--campaign', 'cp_missing', ...remote(server, server.readKey)]);
    expect([unknown.code, unknown.stdout, unknown.stderr]).toEqual([1, '', expect.stringContaining('HTTP 404')]);

    const outDir = mkdtempSync(join(dir, `${kind}-out-`));
    const out = join(outDir, 'leads.csv');
    writeFileSync(out, 'a good export from yesterday\n', { mode: 0o600 });
    const refused = await cli(['export', '--campaign', server.campaignId, ...remote(server, 'll_bogus'), '--out', out]);
    expect([refused.code, refused.stderr]).toEqual([1, expect.stringContaining('HTTP 401')]);
    expect(readFileSync(out, 'utf8')).toBe('a good export from yesterday\n');
    expect(readdirSync(outDir)).toEqual(['leads.csv']); // no temporary file left behind
    const done = await cli(['export', '--campaign', server.campaignId, ...remote(server, server.readKey), '--out', out]);
    expect(done.code).toBe(0);
    expect(readFileSync(out, 'utf8')).toMatch(/^_id,campaignId,phoneNumber/);
    expect(statSync(out).mode & 0o777).toBe(0o600); // kept private, as it was
    expect(readdirSync(outDir)).toEqual(['leads.csv']);
  });

  it('exits 1 when the server refuses the import itself (a read key)', async () => {
    const file = join(dir, `${kind}-read.csv`);
    writeFileSync(file, 'phoneNumber\n+14155550950\n');
    const run = await cli(['import', file, '--campaign', server.campaignId, ...remote(server, server.readKey)]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('the server refused the key: HTTP 403: Insufficient permissions (no row was imported');
  });
});

describe('an interrupted import', () => {
  let server: SeededServer;
  beforeAll(async () => {
    server = await startSeededServer('sqlite');
  });
  afterAll(() => server?.stop());

  it('resumes after the last acknowledged chunk and creates no duplicates', async () => {
    const ROWS = 60_000;
    const file = join(dir, 'big.csv');
    const bad = (i: number) => i % 997 === 0;
    const lines = ['phoneNumber,externalId,row'];
    for (let i = 1; i <= ROWS; i++) lines.push(`${bad(i) ? 'bad' : `+1415${String(i).padStart(7, '0')}`},x-${i},${i}`);
    writeFileSync(file, `${lines.join('\n')}\n`);
    const valid = Array.from({ length: ROWS }, (_, i) => i + 1).filter((i) => !bad(i)).length;
    const state = join(dir, 'big.rejects.state.json');
    const args = [BIN, 'import', file, '--campaign', server.campaignId, ...remote(server), '--json'];

    const first: ChildProcess = spawn(process.execPath, args, { stdio: 'ignore' });
    const exited = new Promise((resolve) => first.once('exit', resolve));
    // kill it hard, mid-file, once a few chunks are acknowledged
    for (;;) {
      const rows = existsSync(state) ? (JSON.parse(readFileSync(state, 'utf8')) as { rows: number }).rows : 0;
      if (rows >= 5000) break;
      if (first.exitCode !== null) throw new Error('the import finished before it could be interrupted');
      await new Promise((r) => setTimeout(r, 5));
    }
    first.kill('SIGKILL');
    await exited;
    const saved = JSON.parse(readFileSync(state, 'utf8'));
    expect(saved.rows).toBeLessThan(ROWS);

    const second = await cli(args.slice(1));
    expect(second.code).toBe(0);
    const summary = JSON.parse(second.stdout);
    expect(summary.resumedAfterLine).toBeGreaterThanOrEqual(saved.line);
    expect(summary).toMatchObject({ rows: ROWS, rejected: ROWS - valid });
    // the chunk in flight at the kill may have been stored already: sent again, it is skipped, not doubled
    expect(summary.created + summary.skipped).toBe(valid);
    expect(existsSync(state)).toBe(false);

    const rejects = records(readFileSync(summary.rejectsPath, 'utf8'));
    expect(rejects.map((r) => Number(r.row))).toEqual(Array.from({ length: ROWS }, (_, i) => i + 1).filter(bad));

    const exported = await cli(['export', '--campaign', server.campaignId, ...remote(server), '--format', 'ndjson']);
    const phones = exported.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line).phoneNumber as string);
    expect(phones.length).toBe(valid);
    expect(new Set(phones).size).toBe(valid);
  }, 120_000);
});
