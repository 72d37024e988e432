/** Lead statements written once for both databases; the dialect classes extend this. */
import { type RawBuilder, sql } from 'kysely';
import type { Db, Executor } from '../../db/index.js';
import { digester, removeLeadNumbers } from '../digests.js';
import type { LeadStatus } from '../../leads/lifecycle.js';
import type { EventItem, EventStore } from '../events.js';
import { type SearchKey, searchScans } from './lead-search.js';
import type { DeletedLead, ExistingRow, LeadRow, LeadStore, Lookup, NewLeadRow, PageJson, StatusCount } from '../leads.js';

const LEAD_COLUMNS = [
  'seq',
  'id',
  'campaign_id',
  'phone_number',
  'external_id',
  'metadata',
  'status',
  'scheduled_for',
  'priority',
  'attempts',
  'extra_attempts',
  'created_at',
] as const;

/** bigint columns come back as strings from some drivers; the store answers numbers */
const leadRow = (r: LeadRow): LeadRow => ({
  ...r,
  seq: Number(r.seq),
  priority: Number(r.priority),
  attempts: Number(r.attempts),
  extra_attempts: Number(r.extra_attempts),
  created_at: Number(r.created_at),
});

/** "the campaign's leads after seq" and the order that matches it, as each database plans it best */
export interface Keyset {
  where: RawBuilder<unknown>;
  order: RawBuilder<unknown>;
}

/** the items of lead.created or lead.deleted events */
export const leadItems = (leads: readonly { id: string; externalId: string | null }[]): EventItem[] =>
  leads.map((l) => ({ leadId: l.id, externalId: l.externalId }));

export abstract class SharedLeadStore implements LeadStore {
  constructor(
    protected readonly db: Db,
    /** the executor this store runs on: the database, or a transaction of it */
    protected readonly ex: Executor,
    protected readonly events: EventStore,
  ) {}

  abstract insertOne(campaignId: string, lead: NewLeadRow, now: number): Promise<string | null>;
  abstract findExisting(campaignId: string, externalIds: readonly string[], phoneNumbers: readonly string[]): Promise<ExistingRow[]>;
  abstract taken(campaignId: string, column: 'external_id' | 'phone_number', values: readonly string[]): Promise<Set<string>>;
  abstract listPage(campaignId: string, status: LeadStatus | undefined, afterSeq: number, limit: number): Promise<PageJson>;
  /** inserts in array order, skipping what the unique indexes refuse; the ids inserted */
  protected abstract insertRows(campaignId: string, leads: readonly NewLeadRow[], now: number): Promise<Set<string>>;
  /** deletes the matching leads, returning them */
  protected abstract deleteRows(
    campaignId: string,
    externalIds: readonly string[],
    phoneNumbers: readonly string[],
  ): Promise<DeletedLead[]>;
  /** `campaign_id = <campaign>` for a lookup by identifier, as the dialect plans it best */
  protected abstract inCampaign(campaignId: string): RawBuilder<string> | string;
  protected abstract keyset(campaignId: string, status: LeadStatus | undefined, afterSeq: number): Keyset;
  /** the search's index expressions (migration 0018), compared by bytes */
  protected abstract searchKey: SearchKey;
  /** the plan lines of an EXPLAIN of `q` (the statement is not run) */
  protected abstract plan(q: RawBuilder<unknown>): Promise<string[]>;

  /** this store on another executor (a transaction of the same database) */
  protected abstract on(ex: Executor): SharedLeadStore;

  /** runs fn in a write transaction: this store's own, or a new, bounded one (at most a bulk's 1000 leads: Db.writeTx) when it runs on the database */
  protected inWriteTx<T>(fn: (self: this) => Promise<T>): Promise<T> {
    return this.ex === this.db.kysely ? this.db.writeTx((tx) => fn(this.on(tx) as this), { bounded: true }) : fn(this);
  }

  insertMany(campaignId: string, leads: readonly NewLeadRow[], now: number): Promise<Set<string>> {
    if (leads.length === 0) return Promise.resolve(new Set());
    return this.inWriteTx(async (self) => {
      const inserted = await self.insertRows(campaignId, leads, now);
      await self.events.append({ type: 'lead.created', campaignId, items: leadItems(leads.filter((l) => inserted.has(l.id))), now });
      return inserted;
    });
  }

  deleteMany(
    campaignId: string,
    externalIds: readonly string[],
    phoneNumbers: readonly string[],
    now = Date.now(),
  ): Promise<DeletedLead[]> {
    return this.inWriteTx(async (self) => {
      const deleted = await self.deleteRows(campaignId, externalIds, phoneNumbers);
      await self.removeNumbers(deleted.map((d) => d.id));
      const items = leadItems(deleted.map((d) => ({ id: d.id, externalId: d.external_id })));
      await self.events.append({ type: 'lead.deleted', campaignId, items, now });
      return deleted;
    });
  }

  /** the call history of deleted leads keeps no number: each is replaced by its digest, which the call caps count */
  private removeNumbers(leadIds: readonly string[]): Promise<number> {
    return leadIds.length === 0 ? Promise.resolve(0) : removeLeadNumbers(this.ex, digester(this.db, this.ex), leadIds);
  }

  async exists(campaignId: string, by: Lookup): Promise<boolean> {
    const row = await this.ex
      .selectFrom('leads')
      .select('seq')
      .where('campaign_id', '=', this.inCampaign(campaignId))
      .where((eb) => ('externalId' in by ? eb('external_id', '=', by.externalId) : eb('phone_number', '=', by.phoneNumber)))
      .executeTakeFirst();
    return row !== undefined;
  }

  deleteOne(campaignId: string, by: Lookup, now = Date.now()): Promise<boolean> {
    return this.inWriteTx(async (self) => {
      const deleted = await self.ex
        .deleteFrom('leads')
        .where('campaign_id', '=', this.inCampaign(campaignId))
        .where((eb) => ('externalId' in by ? eb('external_id', '=', by.externalId) : eb('phone_number', '=', by.phoneNumber)))
        .returning(['id', 'external_id'])
        .executeTakeFirst();
      if (!deleted) return false;
      await self.removeNumbers([deleted.id]);
      await self.events.append({
        type: 'lead.deleted',
        campaignId,
        items: leadItems([{ id: deleted.id, externalId: deleted.external_id }]),
        now,
      });
      return true;
    });
  }

  async page(
    campaignId: string,
    status: LeadStatus | undefined,
    afterSeq: number,
    limit: number,
  ): Promise<{ leads: LeadRow[]; more: boolean }> {
    const from = this.keyset(campaignId, status, afterSeq);
    const { rows } = await sql<LeadRow>`select ${sql.join(LEAD_COLUMNS.map((c) => sql.ref(c)))}
      from leads where ${from.where} order by ${from.order} limit ${limit + 1}`.execute(this.ex);
    const more = rows.length > limit;
    return { leads: rows.slice(0, limit).map(leadRow), more };
  }

  async pageStartBefore(campaignId: string, status: LeadStatus | undefined, afterSeq: number, limit: number): Promise<number | null> {
    let q = this.ex.selectFrom('leads').select('seq').where('campaign_id', '=', campaignId).where('seq', '<=', afterSeq);
    if (status !== undefined) q = q.where('status', '=', status);
    const row = await q.orderBy('seq', 'desc').limit(1).offset(limit).executeTakeFirst();
    return row ? Number(row.seq) : null;
  }

  async byId(campaignId: string, leadId: string): Promise<LeadRow | undefined> {
    const row = await this.ex
      .selectFrom('leads')
      .select(LEAD_COLUMNS)
      .where('id', '=', leadId)
      .where('campaign_id', '=', campaignId)
      .executeTakeFirst();
    return row && leadRow(row);
  }

  async search(campaignId: string, text: string, limit: number): Promise<{ leads: LeadRow[]; more: boolean }> {
    const found = new Map<string, LeadRow>();
    let more = false;
    const columns = sql.join(LEAD_COLUMNS.map((c) => sql.ref(c)));
    for (const scan of searchScans(this.searchKey, campaignId, text, limit + 1, columns)) {
      const { rows } = await sql<LeadRow>`${scan}`.execute(this.ex);
      if (rows.length > limit) more = true;
      for (const r of rows.slice(0, limit)) found.set(r.id, leadRow(r));
    }
    const exact = (l: LeadRow) => (l.phone_number === text || l.external_id === text ? 0 : 1);
    const leads = [...found.values()].sort((a, b) => exact(a) - exact(b) || a.seq - b.seq);
    return { leads: leads.slice(0, limit), more: more || leads.length > limit };
  }

  async searchPlan(campaignId: string, text: string): Promise<string[][]> {
    const scans = searchScans(this.searchKey, campaignId, text, 51, sql`id`);
    return Promise.all(scans.map((q) => this.plan(q)));
  }

  /** served by the (campaign_id, status, seq) index */
  async statusCounts(companyId: string, campaignId?: string): Promise<StatusCount[]> {
    const { rows } = await sql<StatusCount>`
      select l.campaign_id, l.status, count(*) as n
      from campaigns c join leads l on l.campaign_id = c.id
      where c.company_id = ${companyId} ${campaignId === undefined ? sql`` : sql`and c.id = ${campaignId}`}
      group by l.campaign_id, l.status`.execute(this.ex);
    return rows.map((r) => ({ ...r, n: Number(r.n) }));
  }
}
