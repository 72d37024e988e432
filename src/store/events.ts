/**
 * The events table: the transactional outbox (migration 0009). Store methods
 * that change leads append their events here on the same executor, so an
 * event commits exactly when its change does. A row is a batch: one change
 * of many leads (a bulk create, a claim) is one row whose items are the
 * events, one per lead, numbered by their place in the row.
 */
import { sql } from 'kysely';
import type { Executor } from '../db/index.js';

const EVENT_TYPES = ['lead.created', 'lead.deleted', 'lead.status_changed', 'attempt.started', 'attempt.finished', 'dnc.added'] as const;
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
}

export type EventMark = Pick<EventRow, 'id' | 'type' | 'campaign_id'>;

export interface EventStore {
  /** appends one row holding the items (nothing when there are none) */
  append(e: NewEvents): Promise<void>;
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
   */
  marks(afterId: number, limit: number): Promise<EventMark[]>;
  /** the id of the newest row (0 when none) */
  lastId(): Promise<number>;
}

export class KyselyEventStore implements EventStore {
  constructor(protected readonly ex: Executor) {}

  async append(e: NewEvents): Promise<void> {
    if (e.items.length === 0) return;
    await this.insert(e).execute(this.ex);
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

  protected insert(e: NewEvents) {
    return sql`insert into events (type, company_id, campaign_id, created_at, count, items)
      select ${e.type}, company_id, id, ${e.now}, ${e.items.length}, ${JSON.stringify(e.items)} from campaigns where id = ${e.campaignId}`;
  }

  async after(afterId: number, types: readonly EventType[] | null, limit: number): Promise<EventRow[]> {
    let q = this.ex.selectFrom('events').selectAll().where('id', '>', afterId);
    if (types) q = q.where('type', 'in', types);
    const rows = await q.orderBy('id').limit(limit).execute();
    return rows.map((r) => ({ ...r, id: Number(r.id), created_at: Number(r.created_at), type: r.type as EventType }));
  }

  async marks(afterId: number, limit: number): Promise<EventMark[]> {
    const rows = await this.ex
      .selectFrom('events')
      .select(['id', 'type', 'campaign_id'])
      .where('id', '>', afterId)
      .orderBy('id')
      .limit(limit)
      .execute();
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
 * PostgreSQL: the same insert, and a NOTIFY on `leadline_events` (delivered
 * when the transaction commits, never before) in the same statement, so a
 * listening dialer learns of new leads at once.
 */
export class PostgresEventStore extends KyselyEventStore {
  override async append(e: NewEvents): Promise<void> {
    if (e.items.length === 0) return;
    await sql`with e as (${this.insert(e)} returning campaign_id) select pg_notify('leadline_events', campaign_id) from e`.execute(this.ex);
  }
}
