/**
 * `leadline dnc add|remove|list|import` and `company update --call-caps` as scripts use them: real processes
 * on SQLite and PostgreSQL, --json output, exit codes, a large CSV streamed
 * in chunks, a file of bare numbers. docs/compliance.md "Do-not-call list", README "CLI".
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCompany } from '../../src/campaigns/service.js';
import { importDnc } from '../../src/compliance/dnc-import.js';
import type { Store } from '../../src/store/index.js';
import { availableStores, createTestStore, type TestStore } from '../helpers/db.js';
import { BIN } from '../helpers/server-process.js';

const dir = mkdtempSync(join(tmpdir(), 'leadline-dnc-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.each(await availableStores())('leadline dnc on %s', (kind) => {
  let store: TestStore;
  let db: Store;
  let company: string;
  beforeAll(async () => {
    store = await createTestStore(kind);
    db = await store.open();
    company = (await createCompany(db, 'Dnc Co')).companyId;
  });
  afterAll(async () => {
    await db?.close();
    await store?.drop();
  });

  const cli = (args: string[]): Promise<{ code: number; stdout: string; stderr: string }> =>
    new Promise((resolve) => {
      execFile(
        process.execPath,
        [BIN, ...args],
        { env: { ...process.env, DATABASE_URL: store.url }, maxBuffer: 64 * 1024 * 1024 },
        (err, stdout, stderr) => resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });
  /** `progress`: the import's progress lines go to stderr (plain lines, not a bar, when stderr is not a terminal) */
  const json = async (args: string[], progress = false) => {
    const r = await cli([...args, '--json']);
    // every command that opens the database first says where it is
    if (progress)
      expect(r.stderr).toMatch(
        /^database: \S+ \S+\n(\d+ rows \(\d+%\), \d+ rows\/s, ETA [^;]+; created \d+, skipped \d+, rejected \d+\n)+$/,
      );
    else expect(r.stderr).toMatch(/^database: (sqlite|postgres) \S+\n$/);
    expect(r.code).toBe(0);
    return JSON.parse(r.stdout);
  };

  it('adds, lists and removes numbers; the source is cli and the reason is kept', async () => {
    expect(await json(['dnc', 'add', '--company', company, '+14155550002', '+14155550001', '--reason', 'asked on the phone'])).toEqual({
      added: 2,
      alreadyListed: 0,
    });
    const again = await cli(['dnc', 'add', '--company', company, '+14155550001', '+14155550003']);
    expect(again).toMatchObject({ code: 0, stdout: 'added 1, already listed 1\n' });
    const listed = await json(['dnc', 'list', '--company', company]);
    expect(listed).toEqual([
      { phoneNumber: '+14155550001', addedAt: expect.any(String), source: 'cli', reason: 'asked on the phone' },
      { phoneNumber: '+14155550002', addedAt: expect.any(String), source: 'cli', reason: 'asked on the phone' },
      { phoneNumber: '+14155550003', addedAt: expect.any(String), source: 'cli' },
    ]);
    const text = await cli(['dnc', 'list', '--company', company]);
    expect(text.stdout.split('\n')[0]).toMatch(/^\+14155550001\t\d{4}-\d\d-\d\dT[^\t]+\tcli\tasked on the phone$/);
    expect(await json(['dnc', 'remove', '--company', company, '+14155550001', '+14155550009'])).toEqual({ removed: 1, notListed: 1 });
    expect((await json(['dnc', 'list', '--company', company])).map((e: { phoneNumber: string }) => e.phoneNumber)).toEqual([
      '+14155550002',
      '+14155550003',
    ]);
  });

  it('refuses bad usage with exit 2 and writes nothing', async () => {
    const before = await db.dnc.count(company);
    const bad = await cli(['dnc', 'add', '--company', company, '+14155550101', '4155550102']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('phoneNumbers[1]: phoneNumber must be in E.164 format');
    // an unknown company is a failure (1, README), not bad usage
    const none = await cli(['dnc', 'add', '--company', 'co_nope', '+14155550101']);
    expect(none).toMatchObject({ code: 1, stderr: expect.stringMatching(/^database: \S+ \S+\nleadline: company co_nope not found\n$/) });
    expect((await cli(['dnc', 'add', '+14155550101'])).code).toBe(2); // no --company
    expect((await cli(['dnc', 'import', join(dir, 'missing.csv'), '--company', company])).code).toBe(2);
    expect(await db.dnc.count(company)).toBe(before);
  });

  it('sets and clears the per-number call caps with company update', async () => {
    expect(await json(['company', 'update', company, '--call-caps', '3/24h,7/7d'])).toEqual({ companyId: company, callCaps: '3/1d,7/7d' });
    expect(await db.companies.callCaps(company)).toBe('3/1d,7/7d');
    const bad = await cli(['company', 'update', company, '--call-caps', '3/1x']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('invalid call cap "3/1x"');
    expect(await db.companies.callCaps(company)).toBe('3/1d,7/7d');
    expect(await json(['company', 'update', company, '--call-caps', 'none'])).toEqual({ companyId: company, callCaps: 'none' });
    expect(await db.companies.callCaps(company)).toBe('');
    expect((await cli(['company', 'update', 'co_nope', '--call-caps', 'none'])).code).toBe(1);
  });

  it('imports a large CSV in chunks of 1000, counting numbers already listed and rejecting bad rows by line', async () => {
    const file = join(dir, `${kind}-numbers.csv`);
    const n = 25_000;
    const rows = Array.from({ length: n }, (_, i) => `+1212${String(i).padStart(7, '0')},row ${i}`);
    rows[100] = '2125550100,bad'; // line 102: the header is line 1
    writeFileSync(file, `name_ignored_first,phone\n${rows.map((r) => r.split(',').reverse().join(',')).join('\n')}\n`);
    await db.transaction((tx) => tx.dnc.add(company, ['+12120000005'], { source: 'api', reason: null, now: 1 }));
    const eventsBefore = await db.events.lastId();
    const summary = await json(['dnc', 'import', file, '--company', company], true);
    expect(summary).toMatchObject({ rows: n, added: n - 2, alreadyListed: 1, rejected: 1 });
    expect(summary.rejections).toEqual([{ line: 102, reason: expect.stringContaining('"2125550100" is not an E.164 number') }]);
    expect(await db.dnc.get(company, '+12120024999')).toMatchObject({ source: 'import', reason: null });
    expect((await db.dnc.get(company, '+12120000005'))?.source).toBe('api'); // kept
    // one transaction, one event row, per chunk of 1000 numbers
    const events = await db.events.after(eventsBefore, ['dnc.added'], 100);
    expect(events).toHaveLength(25);
    expect(events.reduce((s, e) => s + e.count, 0)).toBe(n - 2);
    // the same file again: everything already listed
    expect(await json(['dnc', 'import', file, '--company', company, '--column', 'phone'], true)).toMatchObject({
      added: 0,
      alreadyListed: n - 1,
      rejected: 1,
    });
    const wrong = await cli(['dnc', 'import', file, '--company', company, '--column', 'mobile']);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('no column "mobile"');
  });

  it('every row is counted once (a number given twice: added, then already listed), and a rejected row is named by the line it starts on after a quoted CRLF', async () => {
    const file = join(dir, `${kind}-twice.csv`);
    // line 1 the header; lines 2-3 one row (a quoted CRLF); 4 and 5 the same number; 6 a bad one
    writeFileSync(file, 'phone,note\r\n+14155557001,"a\r\nb"\r\n+14155557002,x\r\n+14155557002,y\r\n0415,z\r\n');
    const summary = await json(['dnc', 'import', file, '--company', company], true);
    expect(summary).toMatchObject({ rows: 4, added: 2, alreadyListed: 1, rejected: 1 });
    expect(summary.rejections).toEqual([{ line: 6, reason: expect.stringContaining('"0415" is not an E.164 number') }]);
  });

  it('a file of bare numbers has no header: its first number is listed too; a named single column is a header', async () => {
    const { companyId } = await createCompany(db, 'Import Co');
    const run = async (name: string, text: string, column?: string) => {
      const file = join(dir, `${kind}-${name}.csv`);
      writeFileSync(file, text);
      const { rows, added, rejected } = await importDnc({ store: db, companyId, file, column, now: () => 1 });
      return { rows, added, rejected };
    };
    expect(await run('bare', '+14155558001\n+14155558002\n+14155558003\n')).toEqual({ rows: 3, added: 3, rejected: 0 });
    expect(await db.dnc.get(companyId, '+14155558001')).toMatchObject({ source: 'import' });
    // any other first cell is a header, as before: a column name, or a number that is not E.164
    expect(await run('named', 'mobile\n+14155558004\n')).toEqual({ rows: 1, added: 1, rejected: 0 });
    expect(await run('local', '4155558005\n+14155558006\n')).toEqual({ rows: 1, added: 1, rejected: 0 });
    // with --column the first row is the header, whatever it holds
    expect(await run('column', '+14155558007\n+14155558008\n', '+14155558007')).toEqual({ rows: 1, added: 1, rejected: 0 });
    expect(await db.dnc.get(companyId, '+14155558007')).toBeUndefined();
  });
});
