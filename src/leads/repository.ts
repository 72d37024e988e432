/**
 * The only file that writes lead SQL. Set-based statements take a whole bulk
 * as ONE parameter (a JSON text on SQLite, an array or JSON on PostgreSQL), so
 * a 1000-lead request is a constant handful of statements whose SQL text never
 * changes, instead of 1000 round trips or a 10,000-parameter statement.
 */
import { type RawBuilder, sql } from 'kysely';
import type { Dialect, Executor } from '../db/index.js';
import type { LeadStatus } from './schemas.js';

export interface NewLeadRow {
  id: string;
  phoneNumber: string | null;
  externalId: string | null;
  /** JSON text */
  metadata: string;
  scheduledFor: string | null;
  priority: number;
}

export interface IdentifierRow {
  external_id: string | null;
  phone_number: string | null;
}

/** `column IN list` with the list bound as a single parameter */
function inList(dialect: Dialect, column: string, values: readonly string[]): RawBuilder<unknown> {
  return dialect === 'postgres'
    ? sql`${sql.ref(column)} = any(${values}::text[])`
    : sql`${sql.ref(column)} in (select value from json_each(${JSON.stringify(values)}))`;
}

export async function findExisting(
  ex: Executor,
  dialect: Dialect,
  campaignId: string,
  externalIds: readonly string[],
  phoneNumbers: readonly string[],
): Promise<IdentifierRow[]> {
  if (externalIds.length === 0 && phoneNumbers.length === 0) return [];
  const { rows } = await sql<IdentifierRow>`
    select external_id, phone_number from leads
    where campaign_id = ${campaignId}
      and (${inList(dialect, 'external_id', externalIds)} or ${inList(dialect, 'phone_number', phoneNumbers)})`.execute(ex);
  return rows;
}

/** inserts rows in array order (so seq follows it); returns the ids actually inserted */
export async function insertMany(
  ex: Executor,
  dialect: Dialect,
  campaignId: string,
  leads: readonly NewLeadRow[],
  now: number,
): Promise<Set<string>> {
  if (leads.length === 0) return new Set();
  const json = JSON.stringify(leads);
  // "where true" resolves SQLite's parsing ambiguity between INSERT…SELECT and ON CONFLICT.
  const query =
    dialect === 'postgres'
      ? sql<{ id: string }>`
        insert into leads (id, campaign_id, phone_number, external_id, metadata, scheduled_for, priority, status, attempts, created_at)
        select x.id, ${campaignId}, x."phoneNumber", x."externalId", x.metadata, x."scheduledFor", x.priority, 'raw', 0, ${now}::bigint
        from rows from (json_to_recordset(${json}::json)
          as (id text, "phoneNumber" text, "externalId" text, metadata text, "scheduledFor" text, priority int))
          with ordinality as x(id, "phoneNumber", "externalId", metadata, "scheduledFor", priority, ord)
        order by ord
        on conflict do nothing returning id`
      : sql<{ id: string }>`
        insert into leads (id, campaign_id, phone_number, external_id, metadata, scheduled_for, priority, status, attempts, created_at)
        select value->>'id', ${campaignId}, value->>'phoneNumber', value->>'externalId', value->>'metadata',
               value->>'scheduledFor', value->>'priority', 'raw', 0, ${now}
        from json_each(${json}) where true order by key
        on conflict do nothing returning id`;
  const { rows } = await query.execute(ex);
  return new Set(rows.map((r) => r.id));
}

/** deletes the leads matching externalIds (by external_id) or phoneNumbers (by phone_number) */
export async function deleteMany(
  ex: Executor,
  dialect: Dialect,
  campaignId: string,
  externalIds: readonly string[],
  phoneNumbers: readonly string[],
): Promise<IdentifierRow[]> {
  const { rows } = await sql<IdentifierRow>`
    delete from leads
    where campaign_id = ${campaignId}
      and (${inList(dialect, 'external_id', externalIds)} or ${inList(dialect, 'phone_number', phoneNumbers)})
    returning external_id, phone_number`.execute(ex);
  return rows;
}

export interface PageRow {
  page: string;
  n: number;
  last: number | null;
}

/**
 * One page as JSON text built by the database itself: no per-row objects in
 * Node and no JSON.stringify of 8000 leads. Optional fields are left out when
 * absent, as the spec's Lead says; metadata is stored as JSON text already.
 */
export async function listPage(
  ex: Executor,
  dialect: Dialect,
  campaignId: string,
  status: LeadStatus | undefined,
  afterSeq: number,
  limit: number,
): Promise<PageRow> {
  const pg = dialect === 'postgres';
  const q = (column: string) => (pg ? sql`to_json(${sql.ref(column)})::text` : sql`json_quote(${sql.ref(column)})`);
  const opt = (name: string, column: string) =>
    sql`case when ${sql.ref(column)} is null then '' else ${sql.lit(`,"${name}":`)} || ${q(column)} end`;
  const agg = pg ? sql`string_agg(j, ',' order by seq)` : sql`group_concat(j, ',' order by seq)`;
  const { rows } = await sql<PageRow>`
    select '[' || coalesce(${agg}, '') || ']' as page, count(*) as n, max(seq) as last from (
      select seq, '{"_id":' || ${q('id')} || ',"campaignId":' || ${q('campaign_id')}
        || ${opt('phoneNumber', 'phone_number')} || ${opt('externalId', 'external_id')}
        || ',"metadata":' || metadata || ',"status":"' || status || '"'
        || ${opt('scheduledFor', 'scheduled_for')}
        || ',"priority":' || priority || ',"attempts":' || attempts || ',"_creationTime":' || created_at || '}' as j
      from leads
      where campaign_id = ${campaignId} ${status ? sql`and status = ${status}` : sql``} and seq > ${afterSeq}
      order by seq limit ${limit}
    ) page`.execute(ex);
  const row = rows[0]!;
  return { page: row.page, n: Number(row.n), last: row.last === null ? null : Number(row.last) };
}

export async function hasAfter(
  ex: Executor,
  campaignId: string,
  status: LeadStatus | undefined,
  afterSeq: number,
): Promise<boolean> {
  const { rows } = await sql`
    select 1 as x from leads
    where campaign_id = ${campaignId} ${status ? sql`and status = ${status}` : sql``} and seq > ${afterSeq}
    order by seq limit 1`.execute(ex);
  return rows.length > 0;
}

/** null when a unique index refused it (a duplicate) */
export async function insertOne(ex: Executor, campaignId: string, lead: NewLeadRow, now: number): Promise<string | null> {
  const row = await ex
    .insertInto('leads')
    .values({
      id: lead.id,
      campaign_id: campaignId,
      phone_number: lead.phoneNumber,
      external_id: lead.externalId,
      metadata: lead.metadata,
      scheduled_for: lead.scheduledFor,
      priority: lead.priority,
      status: 'raw',
      attempts: 0,
      created_at: now,
    })
    .onConflict((oc) => oc.doNothing())
    .returning('id')
    .executeTakeFirst();
  return row?.id ?? null;
}

export type Lookup = { externalId: string } | { phoneNumber: string };

export async function exists(ex: Executor, campaignId: string, by: Lookup): Promise<boolean> {
  const row = await ex
    .selectFrom('leads')
    .select('seq')
    .where('campaign_id', '=', campaignId)
    .where((eb) =>
      'externalId' in by ? eb('external_id', '=', by.externalId) : eb('phone_number', '=', by.phoneNumber),
    )
    .executeTakeFirst();
  return row !== undefined;
}

export async function deleteOne(ex: Executor, campaignId: string, by: Lookup): Promise<boolean> {
  const result = await ex
    .deleteFrom('leads')
    .where('campaign_id', '=', campaignId)
    .where((eb) =>
      'externalId' in by ? eb('external_id', '=', by.externalId) : eb('phone_number', '=', by.phoneNumber),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
