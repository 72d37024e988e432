/**
 * The export's formula guard, by OWASP's CSV Injection page: = + - @ tab CR LF
 * may not begin a cell, and neither may any of them behind whitespace or
 * invisible characters a spreadsheet skips, nor their fullwidth forms.
 * Export used to guard only = + - @ \t \r in the very first position.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { guardCell, unguardCell } from '../../src/integrations/csv-cells.js';
import { csvRecord } from '../../src/integrations/exporter.js';

describe('CSV formula guard', () => {
  it.each([
    ['=1+1'],
    ['+1 (415) 555'],
    ['-2+3+cmd'],
    ['@SUM(A1)'],
    ['\t=x'],
    ['\rx'],
    ['\nx'],
    ['\n'],
    ['\tplain'],
    [' =1+1'],
    ['   @SUM(A1)'],
    ['\u00a0=1+1'],
    ['\u200b=1+1'],
    ['\ufeff@x'],
    ['\u200e+x'],
    ['\u202e-x'],
    ['\u2028=x'],
    ['\u3000=x'],
    ['\u00ad=x'],
    ['\u2060=x'],
    ['\u000b=x'],
    ['\u0000=x'],
    [' \u200b\u00a0 =x'],
    ['＝1+1'],
    ['＋x'],
    ['－x'],
    ['＠x'],
    [' ＝x'],
    ['\u200b＠x'],
    ['﹦x'],
    ['⁼x'],
    ['₊x'],
  ])('%j is guarded', (value) => {
    expect(guardCell(value)).toBe(`'${value}`);
  });

  it.each([
    ['Ann'],
    [' Ann'],
    ['+14155550123'],
    ['-42'],
    ['3.5'],
    ['1+1'],
    ['a=b'],
    [''],
    ['   '],
    ['\u200b'],
    ['é=x'],
    ['{"a":1}'],
    ["'quoted"],
  ])('%j is left alone', (value) => {
    expect(guardCell(value)).toBe(value);
  });

  it('apostrophes already in front of a formula get one more, so import gives them back', () => {
    expect(guardCell("'=x")).toBe("''=x");
    expect(unguardCell("''=x")).toBe("'=x");
    expect(guardCell("' =x")).toBe("'' =x");
    expect(unguardCell("'Ann")).toBe("'Ann"); // not something export would have guarded
    expect(unguardCell("'+14155550123")).toBe("'+14155550123");
  });

  const tricky = fc.string({
    unit: fc.constantFrom(
      "'",
      '=',
      '+',
      '-',
      '@',
      '\t',
      '\r',
      '\n',
      ' ',
      '\u00a0',
      '\u200b',
      '\ufeff',
      '＝',
      '＋',
      'a',
      '1',
      '.',
      '"',
      ',',
    ),
    maxLength: 8,
  });
  /** what a spreadsheet would start to read: past whitespace and invisibles, in its compatibility form */
  const firstVisible = (cell: string) => cell.replace(/^[\s\u200b\ufeff]+/u, '').normalize('NFKC')[0];

  it('every exported cell is safe, and import undoes the guard exactly', () => {
    fc.assert(
      fc.property(fc.oneof(tricky, fc.string()), (value) => {
        const cell = guardCell(value);
        expect(unguardCell(cell)).toBe(value);
        const opensAsFormula = /^[\t\r\n]/.test(cell) || ['=', '+', '-', '@'].includes(firstVisible(cell) ?? '');
        if (opensAsFormula) expect(cell).toMatch(/^[+-]?[0-9]+(\.[0-9]+)?$/); // only plain numbers are left as they are
      }),
      { numRuns: 2000 },
    );
  });

  it('applies to exported rows', () => {
    const row = csvRecord({
      _id: 'ld_1',
      campaignId: 'cp_1',
      phoneNumber: '+14155550123',
      externalId: '\u00a0=HYPERLINK("http://x.example")',
      metadata: {},
      status: 'raw',
      priority: 0,
      attempts: 0,
      _creationTime: 1,
    });
    expect(row[3]).toBe('\'\u00a0=HYPERLINK("http://x.example")');
  });
});
