/**
 * `leadline dnc import`: a CSV of numbers streamed onto a company's
 * do-not-call list, 1000 numbers per transaction (one insert and its
 * dnc.added event), so a file of millions of rows is never held in memory.
 * Rows whose number is not E.164 are counted as rejected, the first few
 * named with their line; the rest of their chunk is listed.
 */
import { statSync } from 'node:fs';
import { readCsv } from '../integrations/csv-source.js';
import type { Progress } from '../integrations/progress.js';
import type { Store } from '../store/index.js';
import { E164 } from './dnc.js';

const CHUNK = 1000;
const SHOWN_REJECTIONS = 20;
/** the column read when --column is not given: the first of these the header has (any case), or a file's only column */
const PHONE_COLUMNS = ['phonenumber', 'phone_number', 'phone', 'number'];

export class DncImportError extends Error {}

export interface DncImportSummary {
  rows: number;
  added: number;
  alreadyListed: number;
  rejected: number;
  rejections: { line: number; reason: string }[];
  seconds: number;
}

/** the column of the numbers, and whether the first row is a header (else it is the first number) */
function columnIndex(first: readonly string[], column: string | undefined): { at: number; header: boolean } {
  if (column !== undefined) {
    const at = first.indexOf(column);
    if (at < 0) throw new DncImportError(`no column "${column}" in the header (${first.join(', ')})`);
    return { at, header: true };
  }
  const at = first.findIndex((h) => PHONE_COLUMNS.includes(h.trim().toLowerCase()));
  if (at >= 0) return { at, header: true };
  // A file of bare numbers has no header: its first number, taken as one, was dropped
  // unseen (neither listed nor counted nor named). No column name is an E.164 number.
  if (first.length === 1) return { at: 0, header: !E164.test(first[0]!.trim()) };
  throw new DncImportError(`which column holds the numbers? none is named ${PHONE_COLUMNS.join(', ')}: give --column NAME`);
}

export async function importDnc(opts: {
  store: Store;
  companyId: string;
  file: string;
  column?: string;
  now: () => number;
  progress?: (totalBytes: number) => Progress;
}): Promise<DncImportSummary> {
  const started = Date.now();
  const size = statSync(opts.file).size;
  const progress = opts.progress?.(size);
  const totals = { rows: 0, added: 0, alreadyListed: 0, rejected: 0 };
  const rejections: DncImportSummary['rejections'] = [];
  let chunk: string[] = [];

  const flush = async (bytes: number) => {
    if (chunk.length > 0) {
      const numbers = chunk;
      const added = await opts.store.transaction((tx) =>
        tx.dnc.add(opts.companyId, numbers, { source: 'import', reason: null, now: opts.now() }),
      );
      totals.added += added.length;
      // a number given twice in the file is listed once, and its second row counts as already listed
      totals.alreadyListed += numbers.length - added.length;
      chunk = [];
    }
    progress?.update({ bytes, rows: totals.rows, created: totals.added, skipped: totals.alreadyListed, rejected: totals.rejected });
  };

  // the lead import's reader (csv-source.ts): csv-parse's own line count put every row after a
  // quoted CRLF a line too far down
  let at: number | undefined;
  try {
    for await (const { record, line, bytes } of readCsv(opts.file)) {
      if (at === undefined) {
        const found = columnIndex(record, opts.column);
        at = found.at;
        progress?.begin(found.header ? bytes : 0, 0);
        if (found.header) continue;
      }
      totals.rows++;
      const phone = (record[at] ?? '').trim();
      if (E164.test(phone)) chunk.push(phone);
      else {
        totals.rejected++;
        if (rejections.length < SHOWN_REJECTIONS)
          rejections.push({
            line,
            reason: `"${phone}" is not an E.164 number (a plus sign and 2 to 15 digits, the first not 0)`,
          });
      }
      if (chunk.length === CHUNK) await flush(bytes);
    }
    if (at === undefined) throw new DncImportError(`${opts.file} is empty: a CSV with a header row is expected`);
    await flush(size);
  } finally {
    progress?.stop();
  }
  return { ...totals, rejections, seconds: (Date.now() - started) / 1000 };
}
