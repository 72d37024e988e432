/** The leads table on PostgreSQL: bulks bound as one array or JSON parameter, plans pinned against stale statistics. */
import { type RawBuilder, sql } from 'kysely';
import type { Executor } from '../../db/index.js';
import { precompiled } from '../../db/precompiled.js';
import type { LeadStatus } from '../../leads/lifecycle.js';
import { PostgresEventStore } from '../events.js';
import type { DeletedLead, ExistingRow, NewLeadRow, PageJson } from '../leads.js';
import type { SearchKey } from '../shared/lead-search.js';
import { type Keyset, SharedLeadStore } from '../shared/leads.js';
import { joinPage, leadJson } from '../shared/page-json.js';
import { plannedWithValues } from '../../db/planned.js';

/**
 * The leads of the campaign whose external_id is in externalIds or whose
 * phone_number is in phoneNumbers, as `select <columns> …` over the alias `l`.
 *
 * PostgreSQL planned `campaign_id = $1 and (external_id in (…) or …)` from the
 * statistics, which do not know a campaign created or grown since the last
 * ANALYZE (autoanalyze waits for a share of the table to change): it estimated
 * the campaign at one row and read all of its leads through a campaign index,
 * filtering on the identifiers. EXPLAIN ANALYZE, 1000 externalIds, a new
 * 60,000-lead campaign in a 1.1M-lead table: 11-18 ms against 2.0 ms analyzed.
 * Here each identifier is a LATERAL … LIMIT 1 subquery, which cannot be turned
 * into a join that scans the campaign, so the plan is a nested loop of index
 * probes. Inside it, the campaign is an InitPlan parameter `(select $1)`, so
 * the planner estimates it as an average campaign, not from the campaign's own
 * (possibly missing) statistics. With the campaign as a plain constant the
 * per-identifier probe misplanned the same way: 2.9 s for 1000 probes of the
 * campaign index. Same data: 1000 externalIds 2.0-2.3 ms stale or analyzed;
 * 1000 externalIds + 1000 phone numbers 5.3-5.8 ms.
 */
function matching(campaignId: string, externalIds: readonly string[], phoneNumbers: readonly string[], columns: RawBuilder<unknown>) {
  const probe = (column: RawBuilder<unknown>, values: readonly string[]) =>
    sql`select ${columns} from unnest(${values}::text[]) as j(v)
      cross join lateral (
        select * from leads where campaign_id = (select ${campaignId}::text) and ${column} = j.v limit 1
      ) l`;
  return sql`${probe(sql.ref('external_id'), externalIds)}
    union all
    ${probe(sql.ref('phone_number'), phoneNumbers)}`;
}

/**
 * Written so that only the (campaign_id[, status], seq) indexes can serve it:
 * with the plain `campaign_id = $1 and seq > $2 order by seq`, the planner may
 * walk the primary key on seq and filter by campaign, assuming the campaign's
 * leads are spread evenly over seq, when they are bunched. At the end of an old
 * campaign it then reads every lead inserted since, in every campaign. Measured
 * (a 1M-lead campaign, then 120,000 leads in another one): the probe after the
 * last page 59 ms → 0.02 ms; a half-full last page 33-94 ms → 0.2-0.3 ms. The
 * row comparison is the index's start key and the `<=` its end key.
 */
function keyset(campaignId: string, status: LeadStatus | undefined, afterSeq: number): Keyset {
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

export class PostgresLeadStore extends SharedLeadStore {
  protected on(ex: Executor): PostgresLeadStore {
    return new PostgresLeadStore(this.db, ex, new PostgresEventStore(ex));
  }

  /**
   * The lead, its lead.created event and the NOTIFY that wakes a listening
   * dialer, in one autocommit statement: one round trip, atomic.
   */
  async insertOne(campaignId: string, lead: NewLeadRow, now: number): Promise<string | null> {
    const { rows } = await insertOneStatement(this.ex, { ...lead, campaignId, now });
    return rows[0]?.id ?? null;
  }

  /**
   * An InitPlan parameter, so that the planner estimates the campaign as an
   * average one rather than from its own, possibly missing, statistics (see
   * matching()). One externalId, a new 60,000-lead campaign: 8.5 ms → 0.05 ms.
   */
  protected inCampaign(campaignId: string): RawBuilder<string> {
    return sql<string>`(select ${campaignId}::text)`;
  }

  protected keyset(campaignId: string, status: LeadStatus | undefined, afterSeq: number): Keyset {
    return keyset(campaignId, status, afterSeq);
  }

  /** byte order whatever the database's collation: the unique indexes' text_pattern_ops (0021), 0018's "C" `_end` indexes */
  protected searchKey: SearchKey = (column, end) =>
    end
      ? { key: sql<string>`(reverse(${sql.ref(column)}) collate "C")`, pattern: false }
      : { key: sql<string>`${sql.ref(column)}`, pattern: true };

  protected async plan(q: RawBuilder<unknown>): Promise<string[]> {
    return (await sql<{ 'QUERY PLAN': string }>`explain ${q}`.execute(this.ex)).rows.map((x) => x['QUERY PLAN']);
  }

  async findExisting(campaignId: string, externalIds: readonly string[], phoneNumbers: readonly string[]): Promise<ExistingRow[]> {
    if (externalIds.length === 0 && phoneNumbers.length === 0) return [];
    const { rows } =
      await sql<ExistingRow>`${matching(campaignId, externalIds, phoneNumbers, sql`l.id, l.external_id, l.phone_number`)}`.execute(this.ex);
    return rows;
  }

  /** a probe per value as in matching(), answering the value itself, so the unique index can answer alone once the leads are all-visible */
  async taken(campaignId: string, column: 'external_id' | 'phone_number', values: readonly string[]): Promise<Set<string>> {
    if (values.length === 0) return new Set();
    const { rows } = await sql<{ v: string }>`select l.v from unnest(${values}::text[]) as j(v)
      cross join lateral (
        select j.v from leads where campaign_id = (select ${campaignId}::text) and ${sql.ref(column)} = j.v limit 1
      ) l`.execute(this.ex);
    return new Set(rows.map((r) => r.v));
  }

  protected async insertRows(campaignId: string, leads: readonly NewLeadRow[], now: number): Promise<Set<string>> {
    const { rows } = await sql<{ id: string }>`
      insert into leads (id, campaign_id, phone_number, external_id, metadata, scheduled_for, priority, status, attempts, created_at)
      select x.id, ${campaignId}, x."phoneNumber", x."externalId", x.metadata, x."scheduledFor", x.priority, 'raw', 0, ${now}::bigint
      from rows from (json_to_recordset(${JSON.stringify(leads)}::json)
        as (id text, "phoneNumber" text, "externalId" text, metadata text, "scheduledFor" text, priority int))
        with ordinality as x(id, "phoneNumber", "externalId", metadata, "scheduledFor", priority, ord)
      order by ord
      on conflict do nothing returning id`.execute(this.ex);
    return new Set(rows.map((r) => r.id));
  }

  /**
   * The matches are collected into an array first (`seq = any(array(…))`), so
   * the delete probes the primary key for each: as a `seq in (…)` semi-join it
   * was planned as a hash join over a sequential scan of every lead when the
   * table was small enough to look cheap (25,000 leads).
   */
  protected async deleteRows(campaignId: string, externalIds: readonly string[], phoneNumbers: readonly string[]): Promise<DeletedLead[]> {
    const { rows } = await sql<DeletedLead>`
      delete from leads where seq = any(array(${matching(campaignId, externalIds, phoneNumbers, sql`l.seq`)}))
      returning id, external_id, phone_number`.execute(this.ex);
    return rows;
  }

  /**
   * Each lead's JSON built by PostgreSQL, the page joined here, as on SQLite;
   * one row past the page answers `more`. The campaign is quoted once, in JS,
   * and bound: every lead of the page is of the campaign asked for (the
   * keyset). bench/, 8000 leads over HTTP, median: rows as objects with the
   * JSON concatenated in JS (before) 31.5-34.0 ms against the floor's
   * 21.6-24.0 ms, which builds each lead's JSON by the database as this does
   * now. The database does that work instead of the server: its CPU is the
   * one several servers share.
   */
  async listPage(campaignId: string, status: LeadStatus | undefined, afterSeq: number, limit: number): Promise<PageJson> {
    const args = { campaignId, quotedCampaign: JSON.stringify(campaignId), afterSeq, take: limit + 1 };
    const { rows } = await (status === undefined ? pageAll(this.ex, args) : pageByStatus(this.ex, { ...args, status }));
    return joinPage(rows, limit);
  }
}

// Compiled once (src/db/precompiled.ts): list limit=1, 50 connections, server
// CPU per request 148 → 140 µs.
type PageArgs = { campaignId: string; quotedCampaign: string; afterSeq: number; take: number };
const pageAll = precompiled((a: PageArgs, ex) => pageQuery(a, undefined).compile(ex));
const pageByStatus = precompiled((a: PageArgs & { status: LeadStatus }, ex) => pageQuery(a, a.status).compile(ex));

function pageQuery(a: PageArgs, status: LeadStatus | undefined) {
  const q = (column: string) => sql`to_json(${sql.ref(column)})::text`;
  const from = keyset(a.campaignId, status, a.afterSeq);
  return sql<{ seq: number; j: string }>`${plannedWithValues}
    select seq, ${leadJson(q, sql`${a.quotedCampaign}::text`)} as j
    from leads where ${from.where} order by ${from.order} limit ${a.take}`;
}

type InsertOneArgs = { [K in keyof NewLeadRow]: NewLeadRow[K] } & { campaignId: string; now: number };
// Compiled once (src/db/precompiled.ts), as the list pages are.
const insertOneStatement = precompiled((a: InsertOneArgs, ex) =>
  sql<{ id: string }>`
    with ins as (
      insert into leads (id, campaign_id, phone_number, external_id, metadata, scheduled_for, priority, status, attempts, created_at)
      values (${a.id}, ${a.campaignId}, ${a.phoneNumber}, ${a.externalId}, ${a.metadata}, ${a.scheduledFor}, ${a.priority}, 'raw', 0, ${a.now})
      on conflict do nothing returning id, external_id, campaign_id
    ),
    ev as (
      insert into events (type, company_id, campaign_id, created_at, count, items)
      select 'lead.created', c.company_id, c.id, ${a.now}, 1, json_build_array(json_build_object('leadId', ins.id, 'externalId', ins.external_id))::text
      from ins join campaigns c on c.id = ins.campaign_id
      returning campaign_id
    )
    select ins.id, (select count(pg_notify('leadline_events', ev.campaign_id)) from ev) as notified from ins`.compile(ex),
);
