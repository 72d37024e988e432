/**
 * `leadline export`: every lead of a campaign, following the list cursor to
 * the end, written as CSV or NDJSON one page at a time. The CSV has one column
 * per Lead field and metadata as one JSON column, so `leadline import` reads
 * an export back as it was; every cell is guarded against formula injection.
 */
import { once } from 'node:events';
import { stringify } from 'csv-stringify/sync';
import type { Lead, LeadlineClient, LeadStatus } from '@leadline/client';
import { CSV_QUOTING, guardCell } from './csv-cells.js';
import { type RetryOptions, withRetry } from './retry.js';

const EXPORT_COLUMNS = [
  '_id',
  'campaignId',
  'phoneNumber',
  'externalId',
  'status',
  'scheduledFor',
  'priority',
  'attempts',
  '_creationTime',
  'metadata',
] as const;

type ExportFormat = 'csv' | 'ndjson';

export interface ExportOptions {
  readonly client: LeadlineClient;
  readonly campaignId: string;
  readonly status?: LeadStatus;
  readonly format: ExportFormat;
  readonly out: NodeJS.WritableStream;
  /** page size; the server lowers anything above 8000 */
  readonly pageSize?: number;
  readonly onPage?: (leads: number) => void;
  readonly retry?: RetryOptions;
}

class ExportError extends Error {}

export function csvRecord(lead: Lead): string[] {
  return EXPORT_COLUMNS.map((column) => {
    const value = lead[column];
    if (value === undefined) return '';
    return guardCell(typeof value === 'object' ? JSON.stringify(value) : String(value));
  });
}

export async function exportLeads(opts: ExportOptions): Promise<{ leads: number }> {
  const write = async (text: string) => {
    if (!opts.out.write(text)) await once(opts.out, 'drain');
  };
  // The header waits for the first page: a refused export (an unknown campaign, a wrong key)
  // must leave stdout empty, not a valid-looking export of no leads.
  let header = opts.format === 'csv' ? stringify([[...EXPORT_COLUMNS]]) : '';
  let cursor: string | undefined;
  let total = 0;
  for (;;) {
    const query = {
      campaignId: opts.campaignId,
      limit: opts.pageSize ?? 8000,
      ...(opts.status ? { status: opts.status } : {}),
      ...(cursor === undefined ? {} : { cursor }),
    };
    const { data, error, response } = await withRetry(() => opts.client.GET('/api/v1/leads', { params: { query } }), opts.retry);
    if (!data) throw new ExportError(`the server refused the list request: HTTP ${response.status}: ${error?.error ?? ''}`);
    const page = data.data;
    const rows =
      opts.format === 'csv'
        ? stringify(page.leads.map(csvRecord), CSV_QUOTING)
        : page.leads.map((lead) => `${JSON.stringify(lead)}\n`).join('');
    if (header + rows !== '') await write(header + rows);
    header = '';
    total += page.leads.length;
    opts.onPage?.(total);
    if (!page.hasMore) return { leads: total };
    cursor = page.cursor;
  }
}
