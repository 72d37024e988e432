/** The pieces of import and export that need no server: columns, rows, cells, progress. */
import { PassThrough } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { guardCell, unguardCell } from '../../src/integrations/csv-cells.js';
import { csvRecord } from '../../src/integrations/exporter.js';
import { ColumnError, countryCode, planColumns, toLead } from '../../src/integrations/lead-rows.js';
import { createProgress } from '../../src/integrations/progress.js';

describe('formula injection guard', () => {
  it('guards cells a spreadsheet would run, but not plain numbers such as E.164 phones', () => {
    expect(guardCell('=1+1')).toBe("'=1+1");
    expect(guardCell('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(guardCell("-2+3+cmd|' /C calc'!A0")).toBe("'-2+3+cmd|' /C calc'!A0");
    expect(guardCell('+1 (415) 555')).toBe("'+1 (415) 555");
    expect(guardCell('\t=x')).toBe("'\t=x");
    expect(guardCell('+14155550123')).toBe('+14155550123');
    expect(guardCell('-42')).toBe('-42');
    expect(guardCell('Ann')).toBe('Ann');
  });

  it('is undone on import for every value that does not itself start with a guard', () => {
    fc.assert(
      fc.property(fc.string(), (value) => {
        fc.pre(!/^'[=+\-@\t\r]/.test(value));
        expect(unguardCell(guardCell(value))).toBe(value);
        const cell = guardCell(value);
        expect(/^[=+\-@\t\r]/.test(cell) && !/^[+-]?[0-9]+(\.[0-9]+)?$/.test(cell)).toBe(false);
      }),
    );
  });

  it('covers every exported cell, metadata included', () => {
    const row = csvRecord({
      _id: 'ld_1',
      campaignId: 'cp_1',
      phoneNumber: '+14155550123',
      externalId: '=cmd',
      metadata: { a: 1 },
      status: 'raw',
      priority: 0,
      attempts: 0,
      _creationTime: 1,
    });
    expect(row).toEqual(['ld_1', 'cp_1', '+14155550123', "'=cmd", 'raw', '', '0', '0', '1', '{"a":1}']);
  });
});

describe('columns', () => {
  it('maps lead fields by name or --map, drops -, renames metadata.KEY, ignores server fields', () => {
    const plan = planColumns(['_id', 'Mobile', 'externalId', 'status', 'Name', 'junk', 'metadata'], {
      Mobile: 'phoneNumber',
      Name: 'metadata.name',
      junk: '-',
    });
    expect(plan.fields).toEqual([
      [1, 'phoneNumber'],
      [2, 'externalId'],
    ]);
    expect(plan.metadata).toEqual([[4, 'name']]);
    expect(plan.metadataJson).toBe(6);
  });

  it('reads header names without the spaces around them (`phoneNumber, externalId`, even quoted)', () => {
    const plan = planColumns(['phoneNumber', ' externalId', ' priority ', ' note'], {});
    expect(plan.header).toEqual(['phoneNumber', 'externalId', 'priority', 'note']);
    expect(plan.fields).toEqual([
      [0, 'phoneNumber'],
      [1, 'externalId'],
      [2, 'priority'],
    ]);
    expect(plan.metadata).toEqual([[3, 'note']]);
  });

  it('refuses a plan that cannot work', () => {
    expect(() => planColumns(['name'], {})).toThrow(ColumnError);
    expect(() => planColumns(['a', 'phoneNumber'], { a: 'phoneNumber' })).toThrow('two columns map to phoneNumber');
    expect(() => planColumns(['a', 'phoneNumber'], { a: 'email' })).toThrow('the target must be one of');
    expect(() => countryCode('XX')).toThrow('--country');
    expect(countryCode('gb')).toBe('GB');
  });

  it('refuses two columns that would land on one key, instead of keeping only the later', () => {
    // --map names a column by its header: it cannot rename one of two, only drop both
    expect(() => planColumns(['phoneNumber', 'note', 'note'], {})).toThrow(
      new ColumnError(
        'the CSV has column "note" twice (columns 2 and 3); rename one in the header row, or leave both out with --map note=-',
      ),
    );
    expect(() => planColumns(['phoneNumber', 'note', 'note'], { note: 'metadata.memo' })).toThrow('column "note" twice');
    expect(() => planColumns(['phoneNumber', 'metadata', 'metadata'], {})).toThrow('column "metadata" twice');
    expect(() => planColumns(['phoneNumber', 'phoneNumber'], {})).toThrow('column "phoneNumber" twice');
    expect(() => planColumns(['phoneNumber', 'Memo', 'note'], { Memo: 'metadata.note' })).toThrow('two columns map to metadata.note');
    // columns that are not read anyway may repeat
    expect(planColumns(['phoneNumber', 'note', 'note'], { note: '-' }).metadata).toEqual([]);
    expect(planColumns(['phoneNumber', '_id', '_id', '', ''], {}).metadata).toEqual([]);
  });
});

describe('rows', () => {
  const plan = planColumns(['phoneNumber', 'externalId', 'priority', 'scheduledFor', 'metadata', 'city'], {});
  const row = (cells: Partial<Record<'phone' | 'ext' | 'priority' | 'at' | 'json' | 'city', string>>) => [
    cells.phone ?? '',
    cells.ext ?? '',
    cells.priority ?? '',
    cells.at ?? '',
    cells.json ?? '',
    cells.city ?? '',
  ];

  it('builds the bulk entry the server expects', () => {
    expect(
      toLead(plan, row({ phone: ' +14155550123 ', priority: '7', at: '2030-01-01T09:00:00Z', json: '{"a":[1]}', city: 'Oslo' })),
    ).toEqual({
      lead: { phoneNumber: '+14155550123', priority: 7, scheduledFor: '2030-01-01T09:00:00Z', metadata: { a: [1], city: 'Oslo' } },
    });
    expect(toLead(plan, row({ ext: "'@crm" }))).toEqual({ lead: { externalId: '@crm' } });
    // the parser trims unquoted cells; what is left around an externalId was quoted, and the API stores it so
    expect(toLead(plan, row({ ext: ' crm 1 ' }))).toEqual({ lead: { externalId: ' crm 1 ' } });
  });

  it('normalises local phone formats only with a default country', () => {
    expect(toLead(plan, row({ phone: '(415) 555-2671' }), { country: 'US' })).toEqual({ lead: { phoneNumber: '+14155552671' } });
    expect(toLead(plan, row({ phone: '020 7946 0018' }), { country: 'GB' })).toEqual({ lead: { phoneNumber: '+442079460018' } });
    expect(toLead(plan, row({ phone: '(415) 555-2671' }))).toEqual({ reason: expect.stringContaining('E.164') });
    // with --country the message names the local format read too, not only E.164
    expect(toLead(plan, row({ phone: '12345' }), { country: 'US' })).toEqual({
      reason:
        'phoneNumber "12345" is not a valid US number: give it in E.164 (e.g. +12015550123) or a US number as dialled there, e.g. (201) 555-0123',
    });
    expect(toLead(plan, row({ phone: '12' }), { country: 'GB' })).toEqual({ reason: expect.stringContaining('e.g. 07400 123456') });
  });

  it('rejects what the server would, with its words', () => {
    const reason = (cells: Parameters<typeof row>[0], phoneRequired = false) =>
      (toLead(plan, row(cells), { phoneRequired }) as { reason: string }).reason;
    expect(reason({})).toBe('At least one of phoneNumber or externalId is required');
    expect(reason({ ext: 'x'.repeat(256) })).toContain('externalId must be');
    expect(reason({ ext: 'a\u0000b' })).toContain('externalId must be');
    expect(reason({ phone: '+14155550123', priority: '5.5' })).toContain('priority must be an integer');
    expect(reason({ phone: '+14155550123', at: '2030-02-30T09:00:00Z' })).toContain('scheduledFor must be');
    expect(reason({ phone: '+14155550123', json: '[1]' })).toBe('the metadata column must hold a JSON object');
    expect(reason({ phone: '+14155550123', city: 'x'.repeat(17_000) })).toContain('metadata must be');
    expect(reason({ ext: 'only' }, true)).toBe('Campaign has no predial function configured; phoneNumber is required');
    expect((toLead(plan, ['+14155550123']) as { reason: string }).reason).toBe('expected 6 fields, found 1');
  });
});

describe('progress', () => {
  const state = { bytes: 500, rows: 1000, created: 990, skipped: 5, rejected: 5 };

  it('draws a bar with rows per second and an ETA on a terminal', async () => {
    const stream = Object.assign(new PassThrough(), {
      isTTY: true,
      columns: 160,
      cursorTo: () => true,
      clearLine: () => true,
      moveCursor: () => true,
    });
    let text = '';
    stream.on('data', (d) => (text += d));
    let now = 0;
    const progress = createProgress({ totalBytes: 1000, stream: stream as unknown as NodeJS.WriteStream, now: () => now });
    progress.begin(0, 0);
    now = 2000;
    progress.update(state);
    progress.stop();
    expect(text).toMatch(/50% \| 1000 rows \| 500 rows\/s \| ETA 2s \| created 990, skipped 5, rejected 5/);
  });

  it('writes plain lines, at most one per interval, when piped', () => {
    const lines: string[] = [];
    const stream = { isTTY: false, write: (s: string) => lines.push(s) } as unknown as NodeJS.WriteStream;
    let now = 0;
    const progress = createProgress({ totalBytes: 1000, stream, now: () => now, intervalMs: 5000 });
    progress.begin(0, 0);
    now = 1000;
    progress.update({ ...state, bytes: 100, rows: 200 });
    now = 2000;
    progress.update({ ...state, bytes: 200, rows: 400 });
    progress.note('rate limited; waiting 6 s (Retry-After)');
    now = 4000;
    progress.update(state);
    progress.stop();
    expect(lines).toEqual([
      '200 rows (10%), 200 rows/s, ETA 9s; created 990, skipped 5, rejected 5\n',
      'rate limited; waiting 6 s (Retry-After)\n',
      '1000 rows (50%), 250 rows/s, ETA 4s; created 990, skipped 5, rejected 5\n',
    ]);
  });
});
