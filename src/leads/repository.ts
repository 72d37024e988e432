/**
 * The only file that writes lead SQL. Set-based statements take a whole bulk
 * as ONE parameter (a JSON text on SQLite, an array or JSON on PostgreSQL), so
 * a 1000-lead request is a constant handful of statements whose SQL text never
 * changes, instead of 1000 round trips or a 10,000-parameter statement.
 */
import { type RawBuilder, sql } from 'kysely';
import type { Dialect, Executor } from '../db/index.js';
import { precompiled } from '../db/precompiled.js';
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

/**
 * The leads of the campaign whose external_id is in externalIds or whose
 * phone_number is in phoneNumbers, as `select <columns> …` over the alias `l`;
 * each list is bound as one parameter. A lead named by several entries may
 * come back more than once. On both databases it is driven by the lists: one
 * probe of the (campaign_id, external_id) / (campaign_id, phone_number) unique
 * index per identifier, whatever the statistics say.
 *
 * SQLite, which has no statistics (leadline never runs ANALYZE), scanned every
 * lead of the campaign for `campaign_id = ? and (external_id in (…) or
 * phone_number in (…))`: 11.5 ms against 1.4 ms for 1000 identifiers in a
 * 50,000-lead campaign, growing with the campaign (bench/). CROSS JOIN fixes
 * the loop order.
 *
 * PostgreSQL planned that form from the statistics, which do not know a
 * campaign created or grown since the last ANALYZE (autoanalyze waits for 10%
 * of the table to change): it estimated the campaign at one row and read all
 * of its leads through a campaign index, filtering on the identifiers.
 * EXPLAIN ANALYZE, 1000 externalIds, a new 60,000-lead campaign in a 1.1M-lead
 * table: 11-18 ms (59,000 rows removed by the filter) against 2.0 ms analyzed.
 * Here each identifier is a LATERAL … LIMIT 1 subquery, which cannot be turned
 * into a join that scans the campaign, so the plan is a nested loop of index
 * probes. Inside it, the campaign is an InitPlan parameter `(select $1)`, so
 * the planner estimates it as an average campaign, not from the campaign's own
 * (possibly missing) statistics: the unique index, matched on both columns,
 * wins whenever campaigns average more than about one lead. With the campaign
 * as a plain constant the per-identifier probe misplanned the same way: 2.9 s
 * for 1000 probes of the campaign index. Same data: 1000 externalIds 2.0-2.3
 * ms stale or analyzed; 1000 externalIds + 1000 phone numbers 5.3-5.8 ms
 * (against 11.4 ms stale, 3.5 ms analyzed); an n_distinct of 1000 or of half
 * the rows changes nothing.
 */
function matching(
  dialect: Dialect,
  campaignId: string,
  externalIds: readonly string[],
  phoneNumbers: readonly string[],
  columns: RawBuilder<unknown>,
): RawBuilder<unknown> {
  if (dialect === 'postgres') {
    const probe = (column: RawBuilder<unknown>, values: readonly string[]) =>
      sql`select ${columns} from unnest(${values}::text[]) as j(v)
        cross join lateral (
          select * from leads where campaign_id = (select ${campaignId}::text) and ${column} = j.v limit 1
        ) l`;
    return sql`${probe(sql.ref('external_id'), externalIds)}
      union all
      ${probe(sql.ref('phone_number'), phoneNumbers)}`;
  }
  return sql`
    select ${columns} from json_each(${JSON.stringify(externalIds)}) j cross join leads l
    where l.campaign_id = ${campaignId} and l.external_id = j.value
    union
    select ${columns} from json_each(${JSON.stringify(phoneNumbers)}) j cross join leads l
    where l.campaign_id = ${campaignId} and l.phone_number = j.value`;
}

export interface ExistingRow extends IdentifierRow {
  id: string;
}

export async function findExisting(
  ex: Executor,
  dialect: Dialect,
  campaignId: string,
  externalIds: readonly string[],
  phoneNumbers: readonly string[],
): Promise<ExistingRow[]> {
  if (externalIds.length === 0 && phoneNumbers.length === 0) return [];
  const { rows } = await sql<ExistingRow>`${matching(
    dialect,
    campaignId,
    externalIds,
    phoneNumbers,
    sql`l.id, l.external_id, l.phone_number`,
  )}`.execute(ex);
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

/**
 * deletes the leads matching externalIds (by external_id) or phoneNumbers (by
 * phone_number). On PostgreSQL the matches are collected into an array first
 * (`seq = any(array(…))`), so the delete probes the primary key for each: as a
 * `seq in (…)` semi-join it was planned as a hash join over a sequential scan
 * of every lead when the table was small enough to look cheap (25,000 leads).
 */
export async function deleteMany(
  ex: Executor,
  dialect: Dialect,
  campaignId: string,
  externalIds: readonly string[],
  phoneNumbers: readonly string[],
): Promise<IdentifierRow[]> {
  const seqs = matching(dialect, campaignId, externalIds, phoneNumbers, sql`l.seq`);
  const { rows } = await sql<IdentifierRow>`
    delete from leads
    where ${dialect === 'postgres' ? sql`seq = any(array(${seqs}))` : sql`seq in (${seqs})`}
    returning external_id, phone_number`.execute(ex);
  return rows;
}

export interface PageRow {
  page: string;
  n: number;
  last: number | null;
  /** a lead of the campaign (and status) exists after the page's last one */
  more: boolean;
}

/**
 * "Leads of this campaign (with this status) after seq", and the order that
 * matches it. On PostgreSQL it is written so that only the (campaign_id[,
 * status], seq) indexes can serve it: with the plain `campaign_id = $1 and seq >
 * $2 order by seq`, the planner may walk the primary key on seq and filter by
 * campaign, assuming the campaign's leads are spread evenly over seq, when they
 * are bunched. At the end of an old campaign it then reads every lead inserted
 * since, in every campaign. Measured (PostgreSQL 15; a 1M-lead campaign, then
 * 120,000 leads in another one): the hasMore probe after the last page 59 ms
 * (120,000 rows read and filtered) → 0.02 ms; a half-full last page, as a client
 * polling for new leads fetches it, 33-94 ms → 0.2-0.3 ms; first page unchanged
 * (0.4-0.6 ms). The row comparison is the index's start key and the `<=` its end
 * key; `campaign_id = $1 and (campaign_id, seq) > ($1, $2)` does not work, as the
 * equality becomes the start key and the row comparison a filter (50-110 ms).
 * On a table never analyzed, PostgreSQL misplans both forms alike (first page
 * of a 300,000-lead campaign ~250 ms); autovacuum's analyze settles it.
 * SQLite already picks the campaign index for the plain form (bench/ prints its plan).
 */
function keyset(
  dialect: Dialect,
  campaignId: string,
  status: LeadStatus | undefined,
  afterSeq: number | RawBuilder<unknown>,
): { where: RawBuilder<unknown>; order: RawBuilder<unknown> } {
  if (dialect !== 'postgres') {
    // Every value is bound inside an expression (`? || ''`, `? + 0`). This
    // better-sqlite3 build has SQLITE_ENABLE_STAT4: once the database has been
    // ANALYZEd (or `PRAGMA optimize`d), a bare parameter compared with an
    // indexed column informs the plan, so each new value re-prepares the
    // statement and the statement cache saves nothing. Same plan, same
    // index (EXPLAIN QUERY PLAN). limit=1 page of an analyzed database,
    // the statement alone: 35 -> 6.6 us (BENCHMARKS.md item 14).
    return {
      where: sql`campaign_id = ${campaignId} || '' ${status ? sql`and status = ${status} || ''` : sql``} and seq > ${afterSeq} + 0`,
      order: sql`seq`,
    };
  }
  return status
    ? {
        where: sql`campaign_id = ${campaignId} and (status, seq) > (${status}, ${afterSeq}) and status <= ${status}`,
        order: sql`status, seq`,
      }
    : {
        where: sql`(campaign_id, seq) > (${campaignId}, ${afterSeq}) and campaign_id <= ${campaignId}`,
        order: sql`campaign_id, seq`,
      };
}

/**
 * One page of leads as JSON text, without a per-lead object or a
 * JSON.stringify of 8000 leads. Optional fields are left out when absent, as
 * the spec's Lead says; metadata is stored as JSON text already. Each database
 * gets the form that is faster there (bench/, 8000 leads, same run): SQLite
 * builds the JSON itself (41.7 ms against 77.9 ms for rows concatenated in JS);
 * PostgreSQL returns rows that JS concatenates (40.9 ms against 63.2 ms for
 * JSON built by the server, which also spends the shared CPU). Both return the
 * same bytes; the bench checks it.
 */
export function listPage(
  ex: Executor,
  dialect: Dialect,
  campaignId: string,
  status: LeadStatus | undefined,
  afterSeq: number,
  limit: number,
): Promise<PageRow> {
  return dialect === 'postgres'
    ? pgPage(ex, campaignId, status, afterSeq, limit)
    : sqlitePage(ex, campaignId, status, afterSeq, limit);
}

interface LeadListRow {
  seq: number;
  id: string;
  campaign_id: string;
  phone_number: string | null;
  external_id: string | null;
  metadata: string;
  status: string;
  scheduled_for: string | null;
  priority: number;
  attempts: number;
  created_at: number;
}

/** limit + 1 rows: the extra one answers `more` in the same statement */
async function pgPage(
  ex: Executor,
  campaignId: string,
  status: LeadStatus | undefined,
  afterSeq: number,
  limit: number,
): Promise<PageRow> {
  // Compiled once (src/db/precompiled.ts), as SQLite's page is. Row 5's list
  // limit=1, PostgreSQL, same run: server CPU per request 148 → 140 µs.
  const args = { campaignId, afterSeq, take: limit + 1 };
  const { rows } = await (status === undefined ? pgPageAll(ex, args) : pgPageByStatus(ex, { ...args, status }));
  const more = rows.length > limit;
  if (more) rows.length = limit;
  const q = JSON.stringify;
  let page = '[';
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i]!;
    page +=
      (i === 0 ? '{"_id":' : ',{"_id":') + q(r.id) + ',"campaignId":' + q(r.campaign_id) +
      (r.phone_number === null ? '' : ',"phoneNumber":' + q(r.phone_number)) +
      (r.external_id === null ? '' : ',"externalId":' + q(r.external_id)) +
      ',"metadata":' + r.metadata + ',"status":"' + r.status + '"' +
      (r.scheduled_for === null ? '' : ',"scheduledFor":' + q(r.scheduled_for)) +
      ',"priority":' + r.priority + ',"attempts":' + r.attempts + ',"_creationTime":' + r.created_at + '}';
  }
  const last = rows.length === 0 ? null : Number(rows[rows.length - 1]!.seq);
  return { page: page + ']', n: rows.length, last, more };
}

type PgPageArgs = { campaignId: string; afterSeq: number; take: number };
const pgPageAll = precompiled((a: PgPageArgs, ex) => pgPageQuery(a.campaignId, undefined, a.afterSeq, a.take).compile(ex));
const pgPageByStatus = precompiled((a: PgPageArgs & { status: LeadStatus }, ex) =>
  pgPageQuery(a.campaignId, a.status, a.afterSeq, a.take).compile(ex),
);

function pgPageQuery(campaignId: string, status: LeadStatus | undefined, afterSeq: number, take: number) {
  const from = keyset('postgres', campaignId, status, afterSeq);
  return sql<LeadListRow>`
    select seq, id, campaign_id, phone_number, external_id, metadata, status, scheduled_for, priority, attempts, created_at
    from leads where ${from.where} order by ${from.order} limit ${take}`;
}

/**
 * SQLite: the page JSON built by the database. `more` (is there a lead after
 * this page?) comes from the same statement, so a page costs one call (the raw
 * time equals the two statements it replaces). It is an ordered `limit 1` probe,
 * not `exists`, so that it stays on the campaign index whatever the planner
 * guesses (PostgreSQL, when it ran this statement, chose a sequential scan for
 * an `exists` and read all 1.1M rows of the bench table after the last page).
 */
async function sqlitePage(
  ex: Executor,
  campaignId: string,
  status: LeadStatus | undefined,
  afterSeq: number,
  limit: number,
): Promise<PageRow> {
  // Compiled once (src/db/precompiled.ts): building and compiling this statement
  // with Kysely took longer than SQLite takes to run it for a small page. Row 5's
  // list limit=1, SQLite, same run: server CPU per request 110 → 77 µs (0.26× →
  // 0.37× the floor's req/s).
  const { rows } = await (status === undefined
    ? sqlitePageAll(ex, { campaignId, afterSeq, limit })
    : sqlitePageByStatus(ex, { campaignId, status, afterSeq, limit }));
  const row = rows[0]!;
  return { page: row.page, n: Number(row.n), last: row.last === null ? null : Number(row.last), more: row.more === 1 };
}

type SqlitePageArgs = { campaignId: string; afterSeq: number; limit: number };
const sqlitePageAll = precompiled((a: SqlitePageArgs, ex) => sqlitePageQuery(a.campaignId, undefined, a.afterSeq, a.limit).compile(ex));
const sqlitePageByStatus = precompiled((a: SqlitePageArgs & { status: LeadStatus }, ex) =>
  sqlitePageQuery(a.campaignId, a.status, a.afterSeq, a.limit).compile(ex),
);

function sqlitePageQuery(campaignId: string, status: LeadStatus | undefined, afterSeq: number, limit: number) {
  const q = (column: string) => sql`json_quote(${sql.ref(column)})`;
  const opt = (name: string, column: string) =>
    sql`case when ${sql.ref(column)} is null then '' else ${sql.lit(`,"${name}":`)} || ${q(column)} end`;
  const from = keyset('sqlite', campaignId, status, afterSeq);
  const next = keyset('sqlite', campaignId, status, sql.ref('agg.last'));
  // Nested subqueries rather than CTEs: SQLite ran the CTE form of this
  // statement ~20% slower (66 µs against 55 µs for a limit=1 page).
  // `limit ? + 0`, not `limit ?`: SQLite (3.53, as better-sqlite3 12 builds it)
  // lets a bare LIMIT parameter inform the plan, so every run re-binding it
  // re-prepared the whole statement from its text, and the cached prepared
  // statement saved nothing. An expression is not looked at; the plan is the
  // same (EXPLAIN QUERY PLAN, identical). limit=1 page, the statement alone:
  // 32.8 µs → 8.0 µs; row 5's list limit=1 (same run, 50 connections), server
  // CPU per request 311 → 172 µs, 0.13× → 0.21× the floor's req/s.
  return sql<{ page: string; n: number; last: number | null; more: number }>`
    select page, n, last,
      (n = ${limit} and (select 1 from leads where ${next.where} order by ${next.order} limit 1) is not null) as more
    from (
      select '[' || coalesce(group_concat(j, ',' order by seq), '') || ']' as page, count(*) as n, max(seq) as last from (
        select seq, '{"_id":' || ${q('id')} || ',"campaignId":' || ${q('campaign_id')}
          || ${opt('phoneNumber', 'phone_number')} || ${opt('externalId', 'external_id')}
          || ',"metadata":' || metadata || ',"status":"' || status || '"'
          || ${opt('scheduledFor', 'scheduled_for')}
          || ',"priority":' || priority || ',"attempts":' || attempts || ',"_creationTime":' || created_at || '}' as j
        from leads
        where ${from.where}
        order by ${from.order} limit ${limit} + 0
      ) page
    ) agg`;
}

/** null when a unique index refused it (a duplicate) */
export async function insertOne(ex: Executor, campaignId: string, lead: NewLeadRow, now: number): Promise<string | null> {
  const { rows } = await insertOneStatement(ex, {
    id: lead.id,
    campaignId,
    phoneNumber: lead.phoneNumber,
    externalId: lead.externalId,
    metadata: lead.metadata,
    scheduledFor: lead.scheduledFor,
    priority: lead.priority,
    now,
  });
  return rows[0]?.id ?? null;
}

// Compiled once (src/db/precompiled.ts), as the list page is. Row 5's single
// create, SQLite, same run: server CPU per request 254 → 215 µs (the rest is
// mostly SQLite's commit: the WAL write and its checkpoints).
const insertOneStatement = precompiled(
  (
    a: {
      id: string;
      campaignId: string;
      phoneNumber: string | null;
      externalId: string | null;
      metadata: string;
      scheduledFor: string | null;
      priority: number;
      now: number;
    },
    ex,
  ) =>
    ex
      .insertInto('leads')
      .values({
        id: a.id,
        campaign_id: a.campaignId,
        phone_number: a.phoneNumber,
        external_id: a.externalId,
        metadata: a.metadata,
        scheduled_for: a.scheduledFor,
        priority: a.priority,
        status: 'raw',
        attempts: 0,
        created_at: a.now,
      })
      .onConflict((oc) => oc.doNothing())
      .returning('id')
      .compile(),
);

export type Lookup = { externalId: string } | { phoneNumber: string };

/**
 * `campaign_id = <campaign>` for a lookup by identifier. On PostgreSQL the
 * campaign is an InitPlan parameter, `(select $1)`, so that the planner
 * estimates it as an average campaign rather than from the campaign's own,
 * possibly missing, statistics (see matching()): a campaign created or grown
 * since the last ANALYZE is otherwise estimated at one lead, the unique index
 * and a campaign index look alike, and PostgreSQL may read the whole campaign
 * through the latter. EXPLAIN ANALYZE, one externalId, a new 60,000-lead
 * campaign in a 1.1M-lead table: 8.5 ms (59,999 rows filtered out) against
 * 0.05 ms. This lookup answers bulk create's first probe, a single create that
 * collides, and a single delete.
 */
function inCampaign(dialect: Dialect, campaignId: string): RawBuilder<string> | string {
  return dialect === 'postgres' ? sql<string>`(select ${campaignId}::text)` : campaignId;
}

export async function exists(ex: Executor, dialect: Dialect, campaignId: string, by: Lookup): Promise<boolean> {
  const row = await ex
    .selectFrom('leads')
    .select('seq')
    .where('campaign_id', '=', inCampaign(dialect, campaignId))
    .where((eb) =>
      'externalId' in by ? eb('external_id', '=', by.externalId) : eb('phone_number', '=', by.phoneNumber),
    )
    .executeTakeFirst();
  return row !== undefined;
}

export async function deleteOne(ex: Executor, dialect: Dialect, campaignId: string, by: Lookup): Promise<boolean> {
  const result = await ex
    .deleteFrom('leads')
    .where('campaign_id', '=', inCampaign(dialect, campaignId))
    .where((eb) =>
      'externalId' in by ? eb('external_id', '=', by.externalId) : eb('phone_number', '=', by.phoneNumber),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
