/**
 * The events table: the transactional outbox (migration 0009). Store methods
 * that change leads append their events here on the same executor, so an
 * event commits exactly when its change does. A row is a batch: one change
 * of many leads (a bulk create, a claim) is one row whose items are the
 * events, one per lead, numbered by their place in the row.
 */
import { type RawBuilder, sql } from 'kysely';
import type { Executor } from '../db/index.js';

export const EVENT_TYPES = [
  'lead.created',
  'lead.deleted',
  'lead.status_changed',
  'attempt.started',
  'attempt.finished',
  'dnc.added',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/**
 * one event's own data; ids, never phone numbers (they are read from their
 * rows when the event is read), except in dnc.added, whose item is the listed
 * number itself: the do-not-call list is the one place a number is kept for good
 */
export type EventItem = Record<string, string | number | boolean | null>;

export interface NewEvents {
  type: EventType;
  /** the campaign the events belong to; its company is looked up */
  campaignId: string;
  items: readonly EventItem[];
  now: number;
}

export interface EventRow {
  id: number;
  type: EventType;
  company_id: string;
  campaign_id: string | null;
  created_at: number;
  count: number;
  items: string;
  /** the first sort key of readers: the writing transaction on PostgreSQL, 0 on SQLite (migration 0012) */
  tx: number;
}

/** a place in the events: `n` items of row (tx, id) already read */
export interface Position {
  tx: number;
  id: number;
  n: number;
}

/** which events a reader follows: a company's, or one campaign's of it, of some types or of all */
export interface EventScope {
  companyId: string;
  campaignId: string | null;
  types: readonly EventType[] | null;
}

export type EventMark = Pick<EventRow, 'id' | 'type' | 'campaign_id'>;

export interface EventStore {
  /**
   * Appends one row per event holding its items (none for an event without items), in the
   * order given, in one statement: a transaction that writes two events pays one round trip.
   */
  append(...events: readonly NewEvents[]): Promise<void>;
  /**
   * The same for a change of the company rather than of one campaign (the
   * do-not-call list): the row has no campaign, and wakes no dialer.
   */
  appendForCompany(e: Omit<NewEvents, 'campaignId'> & { companyId: string }): Promise<void>;
  /** the rows after `afterId` (of the given types, or of all), oldest first */
  after(afterId: number, types: readonly EventType[] | null, limit: number): Promise<EventRow[]>;
  /**
   * The rows after `afterId` without their items, oldest first: what a dialer
   * needs to know which campaigns changed. Every dialer reads every row, so
   * leaving the items (up to a batch of JSON each) in the database matters.
   * `also`: ids at or below `afterId` to read too, if they are there now
   * (src/dialer/wakeups.ts: ids skipped by an earlier read).
   */
  marks(afterId: number, limit: number, also?: readonly number[]): Promise<EventMark[]>;
  /** the id of the newest row (0 when none) */
  lastId(): Promise<number>;
  /**
   * The scope's rows from the position's row on, in (tx, id) order, oldest
   * first; only rows no reader can ever see a row before (docs/events.md
   * "Order"), so a reader that follows them never steps past a late commit.
   */
  feed(scope: EventScope, from: Position, limit: number): Promise<EventRow[]>;
  /** the position after the last row `feed` can read now, of every company */
  end(): Promise<Position>;
  /** the position before the company's first readable row created at or after `at`; null when there is none */
  since(companyId: string, at: number): Promise<Position | null>;
  /** the phone numbers of the leads that still exist, and the numbers dialled by their attempts */
  numbers(
    leadIds: readonly string[],
    attemptIds: readonly string[],
  ): Promise<{ leads: Map<string, string | null>; attempts: Map<string, string | null> }>;
  /**
   * deletes up to `limit` rows created before `before`, of one company when given (`leadline
   * purge`); how many. Callers repeat it until it deletes fewer, each chunk a statement of its own.
   */
  prune(before: number, limit: number, companyId?: string): Promise<number>;
}

const eventRow = (r: Omit<EventRow, 'type'> & { type: string }): EventRow => ({
  ...r,
  id: Number(r.id),
  tx: Number(r.tx),
  created_at: Number(r.created_at),
  count: Number(r.count),
  type: r.type as EventType,
});

export class KyselyEventStore implements EventStore {
  constructor(protected readonly ex: Executor) {}

  async append(...events: readonly NewEvents[]): Promise<void> {
    const rows = events.filter((e) => e.items.length > 0);
    if (rows.length > 0) await this.insert(rows).execute(this.ex);
  }

  async appendForCompany(e: Omit<NewEvents, 'campaignId'> & { companyId: string }): Promise<void> {
    if (e.items.length === 0) return;
    await this.ex
      .insertInto('events')
      .values({
        type: e.type,
        company_id: e.companyId,
        campaign_id: null,
        created_at: e.now,
        count: e.items.length,
        items: JSON.stringify(e.items),
      })
      .execute();
  }

  /**
   * A VALUES list in the order given, which the ids follow (its casts because a VALUES column of
   * parameters is text to PostgreSQL; a CTE names its columns because SQLite takes no column list
   * after a subquery's alias); each row's company from its campaign's.
   */
  protected insert(events: readonly NewEvents[]) {
    const values = events.map(
      (e, i) =>
        sql`(${sql.lit(i)}, ${e.type}, ${e.campaignId}, cast(${e.now} as bigint), cast(${e.items.length} as integer), ${JSON.stringify(e.items)})`,
    );
    return sql`insert into events (type, company_id, campaign_id, created_at, count, items)
      with v(ord, type, campaign_id, created_at, count, items) as (values ${sql.join(values)})
      select v.type, c.company_id, c.id, v.created_at, v.count, v.items from v
      join campaigns c on c.id = v.campaign_id order by v.ord`;
  }

  async after(afterId: number, types: readonly EventType[] | null, limit: number): Promise<EventRow[]> {
    let q = this.ex.selectFrom('events').selectAll().where('id', '>', afterId);
    if (types) q = q.where('type', 'in', types);
    const rows = await q.orderBy('id').limit(limit).execute();
    return rows.map(eventRow);
  }

  /** rows every reader may read: all of them where ids commit in order (SQLite's one writer) */
  protected settled(): RawBuilder<boolean> {
    return sql<boolean>`1 = 1`;
  }

  async feed(scope: EventScope, from: Position, limit: number): Promise<EventRow[]> {
    const { rows } = await sql<EventRow>`select id, type, company_id, campaign_id, created_at, count, items, tx from events
      where company_id = ${scope.companyId}
      ${scope.campaignId === null ? sql`` : sql`and campaign_id = ${scope.campaignId}`}
      ${scope.types === null ? sql`` : sql`and type in (${sql.join(scope.types)})`}
      and (tx, id) >= (${from.tx}, ${from.id}) and ${this.settled()}
      order by tx, id limit ${limit}`.execute(this.ex);
    return rows.map(eventRow);
  }

  async end(): Promise<Position> {
    const { rows } = await sql<{ tx: number; id: number; count: number }>`select tx, id, count from events
      where ${this.settled()} order by tx desc, id desc limit 1`.execute(this.ex);
    const last = rows[0];
    return last ? { tx: Number(last.tx), id: Number(last.id), n: Number(last.count) } : { tx: 0, id: 0, n: 0 };
  }

  async since(companyId: string, at: number): Promise<Position | null> {
    const { rows } = await sql<{ tx: number; id: number }>`select tx, id from events
      where company_id = ${companyId} and created_at >= ${at} and ${this.settled()} order by tx, id limit 1`.execute(this.ex);
    const first = rows[0];
    return first ? { tx: Number(first.tx), id: Number(first.id), n: 0 } : null;
  }

  async numbers(leadIds: readonly string[], attemptIds: readonly string[]) {
    const leads = new Map<string, string | null>();
    const attempts = new Map<string, string | null>();
    if (leadIds.length > 0)
      for (const r of await this.ex.selectFrom('leads').select(['id', 'phone_number']).where('id', 'in', leadIds).execute())
        leads.set(r.id, r.phone_number);
    // an attempt of a deleted lead keeps no number in its events
    if (attemptIds.length > 0)
      for (const r of await this.ex
        .selectFrom('attempts as a')
        .innerJoin('leads as l', 'l.id', 'a.lead_id')
        .select(['a.attempt_id', 'a.phone_number'])
        .where('a.attempt_id', 'in', attemptIds)
        .execute())
        attempts.set(r.attempt_id, r.phone_number);
    return { leads, attempts };
  }

  async prune(before: number, limit: number, companyId?: string): Promise<number> {
    let q = this.ex.selectFrom('events').select('id').where('created_at', '<', before);
    if (companyId !== undefined) q = q.where('company_id', '=', companyId);
    const ids = await q.limit(limit).execute();
    if (ids.length === 0) return 0;
    const r = await this.ex
      .deleteFrom('events')
      .where(
        'id',
        'in',
        ids.map((x) => Number(x.id)),
      )
      .executeTakeFirst();
    return Number(r.numDeletedRows);
  }

  async marks(afterId: number, limit: number, also: readonly number[] = []): Promise<EventMark[]> {
    const after = sql`select id, type, campaign_id from events where id > ${afterId} order by id limit ${limit}`;
    const { rows } = await sql<{ id: number; type: string; campaign_id: string | null }>`${
      also.length === 0
        ? after
        : sql`select id, type, campaign_id from events where id in (${sql.join(also)})
            union all select * from (${after}) a`
    }`.execute(this.ex);
    return rows.map((r) => ({ id: Number(r.id), type: r.type as EventType, campaign_id: r.campaign_id }));
  }

  async lastId(): Promise<number> {
    const row = await this.ex
      .selectFrom('events')
      .select((eb) => eb.fn.max('id').as('id'))
      .executeTakeFirst();
    return Number(row?.id ?? 0);
  }
}

/**
 * PostgreSQL: rows are read in (tx, id) order, and only those written by a
 * transaction older than every transaction still running (the reading
 * statement's snapshot xmin): every row still to commit has a tx at or
 * above it, so nothing will ever appear before what has been read.
 *
 * The same insert, and a NOTIFY on `leadline_events` (delivered
 * when the transaction commits, never before) in the same statement, so a
 * listening dialer learns of new leads at once.
 */
export class PostgresEventStore extends KyselyEventStore {
  override async append(...events: readonly NewEvents[]): Promise<void> {
    const rows = events.filter((e) => e.items.length > 0);
    if (rows.length === 0) return;
    await sql`with e as (${this.insert(rows)} returning campaign_id) select pg_notify('leadline_events', campaign_id) from e`.execute(
      this.ex,
    );
  }

  protected override settled(): RawBuilder<boolean> {
    return sql<boolean>`tx < pg_snapshot_xmin(pg_current_snapshot())::text::bigint`;
  }
}
