/** The leads table on SQLite: bulks are multi-row VALUES with bound parameters, identifiers looked up through json_each. */
import { CompiledQuery, type RawBuilder, sql } from 'kysely';
import type { Executor } from '../../db/index.js';
import { precompiled } from '../../db/precompiled.js';
import type { LeadStatus } from '../../leads/lifecycle.js';
import { KyselyEventStore } from '../events.js';
import type { DeletedLead, ExistingRow, NewLeadRow, PageJson } from '../leads.js';
import type { SearchKey } from '../shared/lead-search.js';
import { type Keyset, leadItems, SharedLeadStore } from '../shared/leads.js';
import { joinPage, leadJson } from '../shared/page-json.js';

/**
 * The leads of the campaign whose external_id is in externalIds or whose
 * phone_number is in phoneNumbers, as `select <columns> …` over the alias `l`.
 * SQLite, which has no statistics (leadline never runs ANALYZE), scanned every
 * lead of the campaign for `campaign_id = ? and (external_id in (…) or
 * phone_number in (…))`: 11.5 ms against 1.4 ms for 1000 identifiers in a
 * 50,000-lead campaign, growing with the campaign. CROSS JOIN fixes the loop
 * order: one probe of the unique index per identifier.
 */
function matching(campaignId: string, externalIds: readonly string[], phoneNumbers: readonly string[], columns: RawBuilder<unknown>) {
  return sql`
    select ${columns} from json_each(${JSON.stringify(externalIds)}) j cross join leads l
    where l.campaign_id = ${campaignId} and l.external_id = j.value
    union
    select ${columns} from json_each(${JSON.stringify(phoneNumbers)}) j cross join leads l
    where l.campaign_id = ${campaignId} and l.phone_number = j.value`;
}

/**
 * Every value is bound inside an expression (`? || ''`, `? + 0`). The SQLite
 * build has SQLITE_ENABLE_STAT4: once the database has been ANALYZEd (or
 * `PRAGMA optimize`d), a bare parameter compared with an indexed column
 * informs the plan, so each new value re-prepares the statement and the
 * statement cache saves nothing. Same plan, same index (EXPLAIN QUERY PLAN).
 * limit=1 page of an analyzed database, the statement alone: 35 → 6.6 µs.
 */
function keyset(campaignId: string, status: LeadStatus | undefined, afterSeq: number | RawBuilder<unknown>): Keyset {
  return {
    where: sql`campaign_id = ${campaignId} || '' ${status ? sql`and status = ${status} || ''` : sql``} and seq > ${afterSeq} + 0`,
    order: sql`seq`,
  };
}

export class SqliteLeadStore extends SharedLeadStore {
  protected on(ex: Executor): SqliteLeadStore {
    return new SqliteLeadStore(this.db, ex, new KyselyEventStore(ex));
  }

  /** the lead and its event in one immediate transaction (SQLite has no data-modifying CTEs) */
  insertOne(campaignId: string, lead: NewLeadRow, now: number): Promise<string | null> {
    return this.inWriteTx(async (self) => {
      const { rows } = await insertOneStatement(self.ex, { ...lead, campaignId, now });
      const id = rows[0]?.id ?? null;
      if (id !== null) await self.events.append({ type: 'lead.created', campaignId, items: leadItems([lead]), now });
      return id;
    });
  }

  protected inCampaign(campaignId: string): string {
    return campaignId;
  }

  protected keyset(campaignId: string, status: LeadStatus | undefined, afterSeq: number): Keyset {
    return keyset(campaignId, status, afterSeq);
  }

  /** BINARY already compares bytes: the unique indexes (0001) serve the starts, 0018's the ends */
  protected searchKey: SearchKey = (column, end) => ({
    key: end ? sql<string>`reverse(${sql.ref(column)})` : sql<string>`${sql.ref(column)}`,
    pattern: false,
  });

  protected async plan(q: RawBuilder<unknown>): Promise<string[]> {
    return (await sql<{ detail: string }>`explain query plan ${q}`.execute(this.ex)).rows.map((x) => x.detail);
  }

  async findExisting(campaignId: string, externalIds: readonly string[], phoneNumbers: readonly string[]): Promise<ExistingRow[]> {
    if (externalIds.length === 0 && phoneNumbers.length === 0) return [];
    const { rows } =
      await sql<ExistingRow>`${matching(campaignId, externalIds, phoneNumbers, sql`l.id, l.external_id, l.phone_number`)}`.execute(this.ex);
    return rows;
  }

  /**
   * Only the column is read, so the campaign's unique index on it answers
   * without reading the leads (a retry's lookup: 1000 fewer row reads). The
   * values found come back as one JSON array, not a row each: better-sqlite3
   * makes a JavaScript object of every row, which for 1000 found cost nearly
   * as much as the lookup itself (in-process, 1000 of a campaign in a table of
   * 60,000: 830-860 µs with a row each, 460-490 µs as one array).
   */
  async taken(campaignId: string, column: 'external_id' | 'phone_number', values: readonly string[]): Promise<Set<string>> {
    if (values.length === 0) return new Set();
    const { rows } = await TAKEN[column](this.ex, { campaignId, values: JSON.stringify(values) });
    return new Set(JSON.parse(rows[0]!.found) as string[]);
  }

  /**
   * Multi-row VALUES with bound parameters, in request order, the unique
   * indexes skipping repeats (ON CONFLICT DO NOTHING). Faster than one JSON
   * parameter read with json_each, which SQLite must parse (bench/floor: up to
   * 1.26× over HTTP, 1.39× in-process for 1000 leads; BENCHMARKS.md "The
   * floors"). The text is written here rather than built with Kysely: building
   * and compiling 1000 tuples of 8 values on every request costs what the
   * statement saves. Batches go in chunks of powers of two, so at most 12
   * texts exist and each stays prepared in the driver's statement cache.
   */
  protected async insertRows(campaignId: string, leads: readonly NewLeadRow[], now: number): Promise<Set<string>> {
    const inserted = new Set<string>();
    for (let at = 0; at < leads.length; ) {
      const size = chunkSize(leads.length - at);
      const args: unknown[] = [];
      for (let i = at; i < at + size; i++) {
        const l = leads[i]!;
        args.push(l.id, campaignId, l.phoneNumber, l.externalId, l.metadata, l.scheduledFor, l.priority, now);
      }
      const { rows } = await this.ex.executeQuery(CompiledQuery.raw(insertText(size), args));
      for (const r of rows as { id: string }[]) inserted.add(r.id);
      at += size;
    }
    return inserted;
  }

  protected async deleteRows(campaignId: string, externalIds: readonly string[], phoneNumbers: readonly string[]): Promise<DeletedLead[]> {
    const { rows } = await sql<DeletedLead>`
      delete from leads where seq in (${matching(campaignId, externalIds, phoneNumbers, sql`l.seq`)})
      returning id, external_id, phone_number`.execute(this.ex);
    return rows;
  }

  /**
   * Each lead's JSON built by SQLite, the page joined here; one row past the
   * page answers `more`, so a page costs one call. Built in SQLite rather than
   * from columns in JS: 8000 leads 41.7 ms against 77.9 ms. Joined here rather
   * than by the database (`group_concat(j, ',' order by seq)`, which sorts
   * and copies the page again): bench/diag/floors.js, 8000 leads over HTTP,
   * 27.9 against 20.5 ms (CPU 27.5 against 22.0 ms a request).
   */
  async listPage(campaignId: string, status: LeadStatus | undefined, afterSeq: number, limit: number): Promise<PageJson> {
    const take = limit + 1;
    const { rows } = await (status === undefined
      ? pageAll(this.ex, { campaignId, afterSeq, take })
      : pageByStatus(this.ex, { campaignId, status, afterSeq, take }));
    return joinPage(rows, limit);
  }
}

/**
 * The largest power of two that fits, up to 2048: at 8 parameters a row,
 * 4096 rows are 32768 parameters, past SQLite's 32766 ("too many SQL
 * variables"; test/leads/insert-many.test.ts).
 */
const chunkSize = (left: number) => 2 ** Math.min(11, Math.floor(Math.log2(left)));

const insertTexts = new Map<number, string>();
function insertText(size: number): string {
  let text = insertTexts.get(size);
  if (text === undefined) {
    const tuples = new Array<string>(size).fill("(?,?,?,?,?,?,?,'raw',0,?)").join(',');
    text = `insert into leads (id, campaign_id, phone_number, external_id, metadata, scheduled_for, priority, status, attempts, created_at) values ${tuples} on conflict do nothing returning id`;
    insertTexts.set(size, text);
  }
  return text;
}

// Compiled once (src/db/precompiled.ts), one per identifier column, instead of
// built and compiled with each retry's 1000 identifiers bound: row 2's retry
// side by side (bench/diag/side-by-side.js retry sqlite, three runs) 2,407-2,651
// → 2,267-2,465 µs of server CPU a request; one at a time, within noise.
type TakenArgs = { campaignId: string; values: string };
const takenQuery = (column: 'external_id' | 'phone_number', a: TakenArgs, ex: Executor) =>
  sql<{ found: string }>`select json_group_array(${sql.ref(`l.${column}`)}) as found
    from json_each(${a.values}) j
    cross join leads l where l.campaign_id = ${a.campaignId} and ${sql.ref(`l.${column}`)} = j.value`.compile(ex);
const TAKEN = {
  external_id: precompiled((a: TakenArgs, ex) => takenQuery('external_id', a, ex)),
  phone_number: precompiled((a: TakenArgs, ex) => takenQuery('phone_number', a, ex)),
};

// Compiled once (src/db/precompiled.ts): building and compiling this statement
// with Kysely took longer than SQLite takes to run it for a small page (list
// limit=1, 50 connections: server CPU per request 110 → 77 µs).
type PageArgs = { campaignId: string; afterSeq: number; take: number };
const pageAll = precompiled((a: PageArgs, ex) => pageQuery(a.campaignId, undefined, a.afterSeq, a.take).compile(ex));
const pageByStatus = precompiled((a: PageArgs & { status: LeadStatus }, ex) =>
  pageQuery(a.campaignId, a.status, a.afterSeq, a.take).compile(ex),
);

function pageQuery(campaignId: string, status: LeadStatus | undefined, afterSeq: number, take: number) {
  const q = (column: string) => sql`json_quote(${sql.ref(column)})`;
  const from = keyset(campaignId, status, afterSeq);
  // `limit ? + 0`, not `limit ?`: a bare LIMIT parameter informs SQLite's
  // plan, so every new value re-prepared the statement (limit=1 page, the
  // statement alone: 32.8 µs → 8.0 µs; same plan).
  return sql<{ seq: number; j: string }>`
    select seq, ${leadJson(q, q('campaign_id'))} as j
    from leads
    where ${from.where}
    order by ${from.order} limit ${take} + 0`;
}

// Compiled once (src/db/precompiled.ts), as the list pages are: single create,
// SQLite, 50 connections, server CPU per request 254 → 215 µs (the rest is
// mostly SQLite's commit: the WAL write and its checkpoints).
type InsertOneArgs = { [K in keyof NewLeadRow]: NewLeadRow[K] } & { campaignId: string; now: number };
const insertOneStatement = precompiled((a: InsertOneArgs, ex) =>
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
