/**
 * From CSV rows to bulk-create entries. The checks mirror the server's, with
 * its own patterns and messages, so a bad row is rejected here with the
 * reason the server would give, instead of failing its whole 1000-lead chunk.
 * The server stays the authority: what it still refuses comes back as
 * `leads[N]: …` and the importer rejects that row then.
 */
import { type CountryCode, getExampleNumber, isSupportedCountry, parsePhoneNumberFromString } from 'libphonenumber-js';
import examples from 'libphonenumber-js/mobile/examples';
import type { LeadInput } from '@leadline/client';
import { MESSAGES } from '../errors.js';
import { isZonedDateTime } from '../leads/formats.js';
import { schemaErrorMessage } from '../leads/messages.js';
import { externalId as externalIdSchema, MAX_METADATA_BYTES, phoneNumber as phoneSchema } from '../leads/schemas.js';
import { unguardCell } from './csv-cells.js';

const LEAD_FIELDS = ['phoneNumber', 'externalId', 'priority', 'scheduledFor'] as const;
type LeadField = (typeof LEAD_FIELDS)[number];

/** columns of an export the server controls; never taken from input (docs/api.md) */
const SERVER_FIELDS = ['_id', 'campaignId', 'status', 'attempts', '_creationTime'];
/** the columns a rejects file adds, so a corrected rejects file imports as it is */
export const REJECT_COLUMNS = ['rejectedLine', 'rejectReason'] as const;
const IGNORED = new Set<string>([...SERVER_FIELDS, ...REJECT_COLUMNS]);

export class ColumnError extends Error {}

export interface ColumnPlan {
  readonly header: readonly string[];
  readonly fields: ReadonlyArray<readonly [index: number, field: LeadField]>;
  /** a `metadata` column holding a JSON object, as `leadline export` writes it */
  readonly metadataJson: number | undefined;
  readonly metadata: ReadonlyArray<readonly [index: number, key: string]>;
}

/**
 * --map targets: a lead field, `metadata.KEY` to rename a metadata column,
 * or `-` to drop a column. Unmapped columns named like a lead field are that
 * field; every other column is a metadata entry under its header.
 */
export function planColumns(given: readonly string[], map: Readonly<Record<string, string>>): ColumnPlan {
  // `phoneNumber, externalId` must name those fields, even quoted with the spaces
  const header = given.map((name) => name.trim());
  for (const column of Object.keys(map)) {
    if (!header.includes(column)) throw new ColumnError(`--map: the CSV has no column "${column}" (columns: ${header.join(', ')})`);
  }
  const fields: [number, LeadField][] = [];
  const metadata: [number, string][] = [];
  const addMetadata = (key: string, index: number) => {
    // a column renamed onto another's key (--map A=metadata.note beside a note column)
    if (metadata.some(([, k]) => k === key)) throw new ColumnError(`two columns map to metadata.${key}`);
    metadata.push([index, key]);
  };
  let metadataJson: number | undefined;
  header.forEach((name, index) => {
    const target = map[name] ?? name;
    if (target === '-') return;
    const first = header.indexOf(name);
    // Two columns of one name would land on one key, the later silently winning.
    // --map names a column by its header, so it cannot pick one of them: only dropping both works.
    if (first !== index && (map[name] !== undefined || !(IGNORED.has(name) || name === ''))) {
      throw new ColumnError(
        `the CSV has column "${name}" twice (columns ${first + 1} and ${index + 1}); rename one in the header row, or leave both out with --map ${name}=-`,
      );
    }
    if ((LEAD_FIELDS as readonly string[]).includes(target)) {
      if (fields.some(([, f]) => f === target)) throw new ColumnError(`two columns map to ${target}`);
      fields.push([index, target as LeadField]);
    } else if (target.startsWith('metadata.') && target.length > 'metadata.'.length) {
      addMetadata(target.slice('metadata.'.length), index);
    } else if (map[name] !== undefined) {
      throw new ColumnError(`--map ${name}=${target}: the target must be one of ${LEAD_FIELDS.join(', ')}, metadata.KEY or -`);
    } else if (name === 'metadata') {
      metadataJson = index;
    } else if (!IGNORED.has(name) && name !== '') {
      addMetadata(name, index);
    }
  });
  if (!fields.some(([, f]) => f === 'phoneNumber' || f === 'externalId')) {
    throw new ColumnError('the CSV has no phoneNumber or externalId column; name one with --map COLUMN=phoneNumber');
  }
  return { header, fields, metadataJson, metadata };
}

export interface RowOptions {
  /** normalise local phone formats to E.164 with this default country */
  readonly country?: CountryCode;
  /** learned from the server: the campaign has no predial function */
  readonly phoneRequired?: boolean;
}

export type RowResult = { readonly lead: LeadInput } | { readonly reason: string };

const E164 = new RegExp(phoneSchema.pattern, 'u');
const STORABLE = new RegExp(externalIdSchema.pattern, 'u');
/** the server's own message for a field, from the one place that words them */
const fieldMessage = (field: string) => schemaErrorMessage([{ instancePath: `/${field}`, keyword: 'format', params: {} }], 'body', '');
const NEED_IDENTIFIER = schemaErrorMessage([{ instancePath: '', keyword: 'anyOf', params: {} }], 'body', '');

export function toLead(plan: ColumnPlan, cells: readonly string[], opts: RowOptions = {}): RowResult {
  if (cells.length !== plan.header.length) {
    return { reason: `expected ${plan.header.length} fields, found ${cells.length}` };
  }
  const lead: Partial<Record<LeadField | 'metadata', unknown>> = {};
  for (const [index, field] of plan.fields) {
    // Only an externalId may begin or end with spaces (the API stores it as sent); the parser has
    // trimmed unquoted cells already, so a quoted one is kept as it is and an export imports back unchanged.
    const raw = unguardCell(cells[index]!);
    const value = field === 'externalId' ? raw : raw.trim();
    if (value === '') continue;
    const problem = setField(lead, field, value, opts);
    if (problem) return { reason: problem };
  }
  const metadata = metadataOf(plan, cells);
  if (typeof metadata === 'string') return { reason: metadata };
  if (metadata) lead.metadata = metadata;
  if (lead.phoneNumber === undefined && lead.externalId === undefined) return { reason: NEED_IDENTIFIER };
  if (lead.phoneNumber === undefined && opts.phoneRequired) return { reason: MESSAGES.noPredial };
  return { lead: lead as LeadInput };
}

function setField(lead: Partial<Record<LeadField, unknown>>, field: LeadField, value: string, opts: RowOptions): string | null {
  switch (field) {
    case 'phoneNumber': {
      const phone = E164.test(value) ? value : opts.country ? normalisePhone(value, opts.country) : null;
      if (phone === null && opts.country) return localFormatMessage(value, opts.country);
      if (phone === null) return `${fieldMessage('phoneNumber')}; got "${value}"`;
      lead.phoneNumber = phone;
      return null;
    }
    case 'externalId':
      if ([...value].length > 255 || !STORABLE.test(value)) return fieldMessage('externalId');
      lead.externalId = value;
      return null;
    case 'priority':
      if (!/^[0-9]{1,3}$/.test(value) || Number(value) > 100) return `${fieldMessage('priority')}; got "${value}"`;
      lead.priority = Number(value);
      return null;
    case 'scheduledFor':
      if (!isZonedDateTime(value)) return `${fieldMessage('scheduledFor')}; got "${value}"`;
      lead.scheduledFor = value;
      return null;
  }
}

/** E.164 for a valid number in the default country (or any, when it starts with +); null otherwise */
function normalisePhone(value: string, country: CountryCode): string | null {
  const parsed = parsePhoneNumberFromString(value, country);
  return parsed?.isValid() && E164.test(parsed.number) ? parsed.number : null;
}

/** with --country the plain E.164 rule would mislead: say which local formats are read too */
function localFormatMessage(value: string, country: CountryCode): string {
  const example = getExampleNumber(country, examples);
  const local = example ? ` or a ${country} number as dialled there, e.g. ${example.formatNational()}` : '';
  const e164 = example ? example.number : '+14155550123';
  return `phoneNumber "${value}" is not a valid ${country} number: give it in E.164 (e.g. ${e164})${local}`;
}

export function countryCode(raw: string): CountryCode {
  const code = raw.toUpperCase();
  if (!isSupportedCountry(code)) throw new ColumnError(`--country: "${raw}" is not a supported ISO 3166 country code (e.g. US, GB, DE)`);
  return code;
}

/** metadata from the JSON column and the other columns (empty cells left out); a string is a rejection */
function metadataOf(plan: ColumnPlan, cells: readonly string[]): Record<string, unknown> | undefined | string {
  let metadata: Record<string, unknown> | undefined;
  if (plan.metadataJson !== undefined) {
    const text = unguardCell(cells[plan.metadataJson]!).trim();
    if (text !== '') {
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return 'the metadata column must hold a JSON object';
      metadata = parsed as Record<string, unknown>;
    }
  }
  for (const [index, key] of plan.metadata) {
    const value = unguardCell(cells[index]!);
    if (value !== '') (metadata ??= {})[key] = value;
  }
  if (metadata && Buffer.byteLength(JSON.stringify(metadata)) > MAX_METADATA_BYTES) return fieldMessage('metadata');
  return metadata;
}
