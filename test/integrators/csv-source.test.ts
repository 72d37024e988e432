/**
 * How `leadline import` reads its file (src/integrations/csv-source.ts): the
 * line each row starts on, which the summary and the rejects file report, and
 * UTF-8 read strictly, never guessed.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { EncodingError, readCsv } from '../../src/integrations/csv-source.js';

const dir = mkdtempSync(join(tmpdir(), 'leadline-csv-source-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let files = 0;
async function read(content: string | Buffer): Promise<{ records: string[][]; lines: number[]; error?: Error; file: string }> {
  const file = join(dir, `${++files}.csv`);
  writeFileSync(file, content);
  const records: string[][] = [];
  const lines: number[] = [];
  try {
    for await (const r of readCsv(file)) {
      records.push(r.record);
      lines.push(r.line);
    }
  } catch (error) {
    return { records, lines, error: error as Error, file };
  }
  return { records, lines, file };
}

describe('surrounding whitespace', () => {
  it('is trimmed from unquoted cells and kept in quoted ones; a line of blanks is skipped and still counted', async () => {
    const r = await read('phoneNumber, externalId ,note\n+14155550100,  " crm 1 " ,\tx\u00a0\n   \n+14155550101,"",y\n');
    expect(r.records).toEqual([
      ['phoneNumber', 'externalId', 'note'],
      ['+14155550100', ' crm 1 ', 'x'],
      ['+14155550101', '', 'y'],
    ]);
    expect(r.lines).toEqual([1, 2, 4]);
  });
});

describe('the line a row starts on', () => {
  it('counts a quoted CRLF as one line break, as LF is', async () => {
    // line 1 the header; lines 2-3 one row (a quoted CRLF); line 4; line 5
    const crlf = await read('phoneNumber,note\r\n+14155550100,"a\r\nb"\r\n+14155550101,x\r\nbad,y\r\n');
    expect(crlf.lines).toEqual([1, 2, 4, 5]);
    const lf = await read('phoneNumber,note\n+14155550100,"a\nb"\n+14155550101,x\nbad,y\n');
    expect(lf.lines).toEqual([1, 2, 4, 5]);
    // several in one field, and blank lines (skipped) before and between rows
    const many = await read('\r\nphoneNumber,note\r\n\r\n+1,"a\r\n\r\nb\r\nc"\r\n\r\nbad,y\r\n');
    expect(many.lines).toEqual([2, 4, 9]);
  });

  it('is 1 + the LFs before the row, for any rows, quoted line breaks, blank lines and CRLF or LF', async () => {
    const cell = fc.string({ unit: fc.constantFrom('a', 'é', ',', '"', ' ', '\n', '\r\n', '\r'), maxLength: 8 });
    // quoted as leadline writes CSV: surrounding spaces too, since unquoted ones are trimmed
    const quote = (c: string) => (/[",\r\n]|^\s|\s$/.test(c) ? `"${c.replace(/"/g, '""')}"` : c);
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('\n', '\r\n'),
        fc.array(fc.tuple(fc.nat(2), fc.array(cell, { minLength: 2, maxLength: 3 })), { minLength: 1, maxLength: 6 }),
        async (eol, rows) => {
          let text = '';
          const expected: number[] = [];
          for (const [blank, cells] of rows) {
            text += eol.repeat(blank);
            expected.push(1 + (text.match(/\n/g)?.length ?? 0));
            text += cells.map(quote).join(',') + eol;
          }
          const got = await read(text);
          expect(got.error).toBeUndefined();
          expect(got.records).toEqual(rows.map(([, cells]) => cells));
          expect(got.lines).toEqual(expected);
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe('UTF-8', () => {
  it('refuses bytes that are not UTF-8, naming the file, the byte, its offset and line', async () => {
    const latin1 = Buffer.concat([Buffer.from('phoneNumber,name\n+14155550120,Jos'), Buffer.from([0xe9]), Buffer.from('\n')]);
    const { error, records, file } = await read(latin1);
    expect(error).toBeInstanceOf(EncodingError);
    expect(error?.message).toBe(`${file} is not UTF-8: byte 0xE9 at offset 33 (line 2) is not valid UTF-8 there`);
    expect(records).toEqual([]); // not a row with U+FFFD in it
    // a file that ends inside a character
    const cut = await read(Buffer.concat([Buffer.from('phoneNumber,name\n+1,'), Buffer.from('€').subarray(0, 2)]));
    expect(cut.error?.message).toMatch(/byte 0xE2 at offset 20 \(line 2\)/);
  });

  it('reads a character split between two reads of the file, and a U+FFFD the file really holds', async () => {
    // the file is read 64 KiB at a time: put a 2-, 3- and 4-byte character across that boundary
    for (const char of ['é', '€', '😀']) {
      const head = 'phoneNumber,name\n+1,';
      const name = `${'x'.repeat(64 * 1024 - Buffer.byteLength(head) - 1)}${char}`;
      const { error, records } = await read(`${head}${name}\n`);
      expect(error).toBeUndefined();
      expect(records[1]).toEqual(['+1', name]);
    }
    const { error } = await read(Buffer.concat([Buffer.from('phoneNumber,name\n+1,\uFFFD'), Buffer.from([0xff])]));
    expect(error?.message).toMatch(/byte 0xFF at offset 23 \(line 2\)/);
  });

  it('stops at the first bad byte far into the file, after the rows before it', async () => {
    const rows = Array.from({ length: 5000 }, (_, i) => `+1${i},row ${i}`);
    const bad = Buffer.concat([Buffer.from(`phoneNumber,name\n${rows.join('\n')}\nJos`), Buffer.from([0xe9, 0x0a])]);
    const { error, records } = await read(bad);
    expect(error?.message).toMatch(/at offset \d+ \(line 5002\)/);
    // only rows of whole reads before the bad byte, none after it
    expect(records.length).toBeGreaterThan(1);
    expect(records.length).toBeLessThanOrEqual(5001);
  });
});
