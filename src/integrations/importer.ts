/**
 * `leadline import`: a CSV streamed through the public bulk API, 1000 leads
 * per request, so a file of any size is never held in memory. Rows the
 * client can tell are bad never leave it; rows the server still refuses are
 * moved to the rejects and the rest of their chunk is sent again. Progress is
 * saved after every acknowledged chunk (see import-state.ts). The file is
 * read by csv-source.ts: strictly UTF-8, with the line each row starts on.
 */
import { appendFileSync, existsSync, rmSync, statSync, truncateSync } from 'node:fs';
import { stringify } from 'csv-stringify/sync';
import type { CountryCode } from 'libphonenumber-js';
import type { LeadInput, LeadlineClient } from '@leadline/client';
import { MESSAGES } from '../errors.js';
import { CSV_QUOTING, guardCell, unguardCell } from './csv-cells.js';
import { readCsv } from './csv-source.js';
import { clearState, type ImportState, inputIdentity, loadState, saveState, statePathFor } from './import-state.js';
import { type ColumnPlan, planColumns, REJECT_COLUMNS, toLead } from './lead-rows.js';
import type { Progress } from './progress.js';
import { type RetryOptions, withRetry } from './retry.js';

export interface ImportOptions {
  readonly file: string;
  readonly campaignId: string;
  readonly client: LeadlineClient;
  readonly map?: Readonly<Record<string, string>>;
  readonly country?: CountryCode;
  readonly rejectsPath: string;
  /** ignore the state of an unfinished earlier run */
  readonly restart?: boolean;
  readonly chunkSize?: number;
  readonly progress?: (totalBytes: number) => Progress;
  readonly retry?: RetryOptions;
}

interface Rejection {
  readonly line: number;
  readonly reason: string;
}

export interface ImportSummary {
  readonly rows: number;
  readonly created: number;
  readonly skipped: number;
  readonly rejected: number;
  /** the first rejections, for the screen; all of them are in the rejects file */
  readonly rejections: readonly Rejection[];
  readonly rejectsPath: string | null;
  /** the line an interrupted run had reached, when this run resumed it */
  readonly resumedAfterLine: number | null;
  readonly seconds: number;
}

class ImportError extends Error {}

interface Row {
  readonly line: number;
  readonly cells: readonly string[];
  lead?: LeadInput;
  reason?: string;
}

const SHOWN_REJECTIONS = 20;
const LEADS_AT = /^leads\[(\d+)\]: ([\s\S]*)$/;

export async function importCsv(opts: ImportOptions): Promise<ImportSummary> {
  const started = Date.now();
  const chunkSize = opts.chunkSize ?? 1000;
  const input = inputIdentity(opts.file);
  const statePath = statePathFor(opts.rejectsPath);
  if (opts.restart) clearState(statePath);
  const resumed = loadState(statePath, input, opts.campaignId);
  // Rejects written after the last saved state belong to a chunk that will be sent again.
  if (resumed && existsSync(opts.rejectsPath)) truncateSync(opts.rejectsPath, resumed.rejectsBytes);
  // A fresh run replaces an earlier run's rejects, but only once the server has
  // taken a chunk: a run refused at once (a wrong key) leaves them as they were.
  let staleRejects = !resumed;

  const totals = {
    rows: resumed?.rows ?? 0,
    line: resumed?.line ?? 1,
    created: resumed?.created ?? 0,
    skipped: resumed?.skipped ?? 0,
    rejected: resumed?.rejected ?? 0,
  };
  const rejections: Rejection[] = [];
  const progress = opts.progress?.(input.size);
  let phoneRequired = false;
  let plan: ColumnPlan | undefined;

  const keptRejects = () => (existsSync(opts.rejectsPath) ? `${opts.rejectsPath} is kept` : 'no rejects file was written');

  /** sends the rows that have a lead; sets `reason` on the ones the server refuses */
  async function send(rows: readonly Row[]): Promise<void> {
    let batch = rows.filter((r) => r.lead !== undefined);
    while (batch.length > 0) {
      const leads = batch.map((r) => r.lead!);
      const { data, error, response } = await withRetry(
        () => opts.client.POST('/api/v1/leads/bulk', { body: { campaignId: opts.campaignId, leads } }),
        {
          ...opts.retry,
          onWait: (reason, ms) => {
            progress?.note(reason);
            opts.retry?.onWait?.(reason, ms);
          },
        },
      );
      if (data) {
        totals.created += data.data.created;
        totals.skipped += data.data.skipped;
        return;
      }
      const message = error?.error ?? `HTTP ${response.status}`;
      const entry = response.status === 400 ? LEADS_AT.exec(message) : null;
      const refused = entry ? batch[Number(entry[1])] : undefined;
      if (entry && refused) {
        refused.reason = entry[2]!;
        if (entry[2] === MESSAGES.noPredial) {
          // The campaign has no predial function: every externalId-only row will fail the same way.
          phoneRequired = true;
          for (const r of batch) if (r.lead!.phoneNumber === undefined) r.reason = entry[2];
        }
        batch = batch.filter((r) => r.reason === undefined);
        continue;
      }
      if (response.status === 413 && batch.length > 1) {
        // Large metadata can push 1000 leads past the server's body limit: halve until it fits.
        const half = Math.ceil(batch.length / 2);
        await send(batch.slice(0, half));
        await send(batch.slice(half));
        return;
      }
      if (response.status === 413) {
        batch[0]!.reason = message;
        return;
      }
      if (response.status === 401 || response.status === 403) {
        const sent = totals.rows > 0 ? `rows before line ${batch[0]!.line} were imported` : 'no row was imported';
        throw new ImportError(`the server refused the key: HTTP ${response.status}: ${message} (${sent}; ${keptRejects()})`);
      }
      throw new ImportError(`the server refused the rows up to line ${batch.at(-1)!.line}: HTTP ${response.status}: ${message}`);
    }
  }

  async function flush(rows: Row[], bytes: number): Promise<void> {
    if (rows.length === 0) return;
    await send(rows);
    if (staleRejects) rmSync(opts.rejectsPath, { force: true });
    staleRejects = false;
    const refused = rows.filter((r) => r.reason !== undefined);
    if (refused.length > 0) writeRejects(opts.rejectsPath, plan!.header, refused);
    for (const r of refused) if (rejections.length < SHOWN_REJECTIONS) rejections.push({ line: r.line, reason: r.reason! });
    totals.rows += rows.length;
    totals.rejected += refused.length;
    totals.line = rows.at(-1)!.line;
    const state: ImportState = {
      version: 1,
      input,
      campaignId: opts.campaignId,
      ...totals,
      rejectsBytes: existsSync(opts.rejectsPath) ? statSync(opts.rejectsPath).size : 0,
    };
    saveState(statePath, state);
    progress?.update({ bytes, ...totals });
  }

  const skip = resumed?.rows ?? 0;
  let index = 0;
  let chunk: Row[] = [];
  let leads = 0;
  try {
    for await (const { record, line, bytes } of readCsv(opts.file)) {
      if (plan === undefined) {
        plan = planColumns(record, opts.map ?? {});
        continue;
      }
      index++;
      if (index <= skip) continue;
      if (index === skip + 1) progress?.begin(bytes, skip);
      const result = toLead(plan, record, { country: opts.country, phoneRequired });
      chunk.push('lead' in result ? { line, cells: record, lead: result.lead } : { line, cells: record, reason: result.reason });
      if ('lead' in result) leads++;
      // A chunk closes at 1000 leads; a run of bad rows is capped too, so memory stays bounded.
      if (leads === chunkSize || chunk.length >= chunkSize * 10) {
        await flush(chunk, bytes);
        chunk = [];
        leads = 0;
      }
    }
    if (plan === undefined) throw new ImportError(`${opts.file} is empty: a CSV with a header row is expected`);
    await flush(chunk, input.size);
  } finally {
    progress?.stop();
  }
  clearState(statePath);
  return {
    rows: totals.rows,
    created: totals.created,
    skipped: totals.skipped,
    rejected: totals.rejected,
    rejections,
    rejectsPath: totals.rejected > 0 ? opts.rejectsPath : null,
    resumedAfterLine: resumed ? resumed.line : null,
    seconds: (Date.now() - started) / 1000,
  };
}

/** rejected rows as CSV: line, reason, then the row as it was (guarded, as any CSV we write) */
function writeRejects(path: string, header: readonly string[], rows: readonly Row[]): void {
  // The row's cells as the file had them: one guarded there (export's 'crm-1 for =crm-1) is
  // guarded once, not twice, so that importing the rejects file reads what the first import read.
  const records = rows.map((r) => [guardCell(String(r.line)), guardCell(r.reason!), ...r.cells.map((c) => guardCell(unguardCell(c)))]);
  // a file that is missing, or empty (a resume truncates it to what its saved state counted)
  if (!existsSync(path) || statSync(path).size === 0) records.unshift([...REJECT_COLUMNS, ...header].map(guardCell));
  appendFileSync(path, stringify(records, CSV_QUOTING));
}
