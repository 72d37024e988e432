/** The campaigns table. The same Kysely statements serve both databases. */
import { sql } from 'kysely';
import type { Executor } from '../db/index.js';
import type { CampaignTable } from '../db/schema.js';
import type { EventStore } from './events.js';
import { leadItems } from './shared/leads.js';

export type CampaignRow = CampaignTable;
/** the columns a campaign's settings live in (everything but its identity) */
export type CampaignValues = Partial<Omit<CampaignRow, 'id' | 'company_id' | 'created_at'>>;

export interface CampaignStore {
  byId(id: string): Promise<CampaignRow | undefined>;
  /** the company's campaigns, oldest first */
  ofCompany(companyId: string): Promise<CampaignRow[]>;
  /** the given campaigns (null: every campaign), oldest first */
  list(ids: readonly string[] | null): Promise<CampaignRow[]>;
  /**
   * One fingerprint of the given campaigns (null: all): it changes whenever
   * one is created, changed or deleted, by leadline or around it (the
   * triggers of migration 0023). A running dialer reads the rows again only when it moved.
   */
  revision(ids: readonly string[] | null): Promise<string>;
  insert(row: CampaignRow): Promise<void>;
  update(id: string, values: CampaignValues): Promise<void>;
  /** one more call that could not be placed: the run so far, after this one */
  notPlaced(id: string): Promise<number>;
  /** a call was placed: the run of calls not placed ends */
  placed(id: string): Promise<void>;
  /**
   * `n` more calls the platform took and later reported not placed: the run's length, and since
   * when. A run begun before `restartBefore` that is still shorter than `short` starts again here.
   */
  lateNotPlaced(id: string, n: number, now: number, restartBefore: number, short: number): Promise<{ run: number; since: number }>;
  /** a reported outcome of a placed call: the run of late not-placed outcomes ends */
  latePlaced(id: string): Promise<void>;
  /** pauses the campaign (if it is not paused already) with the reason shown to operators */
  pause(id: string, reason: string, now: number): Promise<void>;
  /** clears the pause and the run of calls not placed; false when it was not paused */
  resume(id: string): Promise<boolean>;
  /**
   * Deletes the campaign with its leads, their attempts and the API keys
   * restricted to it (a key must never outlive its campaign, nor widen to the
   * whole company), and its campaign_pacing row (by the foreign key's
   * cascade); each lead leaves its lead.deleted event, as any lead deleted
   * does. The number of leads deleted. Run it in a transaction.
   */
  /** the campaign's attempts not closed: its calls in progress, and those awaiting their outcome */
  callsInProgress(id: string): Promise<number>;
  /**
   * deletes the campaign's leads (each batch with its lead.deleted event), then, when none of its
   * attempts is still open, its attempts, keys and the campaign itself; the leads deleted and the
   * attempts found open (when there are, nothing else is deleted: the caller rolls back)
   */
  remove(id: string, now: number): Promise<{ leads: number; callsInProgress: number }>;
}

/**
 * the leads a campaign's deletion takes per statement, and so per lead.deleted
 * row: a bulk's size, so that neither the memory held nor an event row (whose
 * items every reader parses whole) grows with the campaign
 */
const REMOVE_BATCH = 1000;

export class KyselyCampaignStore implements CampaignStore {
  constructor(
    private readonly ex: Executor,
    private readonly events: EventStore,
  ) {}

  byId(id: string): Promise<CampaignRow | undefined> {
    return this.ex.selectFrom('campaigns').selectAll().where('id', '=', id).executeTakeFirst();
  }

  ofCompany(companyId: string): Promise<CampaignRow[]> {
    return this.ex.selectFrom('campaigns').selectAll().where('company_id', '=', companyId).orderBy('created_at').orderBy('id').execute();
  }

  list(ids: readonly string[] | null): Promise<CampaignRow[]> {
    let q = this.ex.selectFrom('campaigns').selectAll().orderBy('created_at').orderBy('id');
    if (ids) q = q.where('id', 'in', ids.length > 0 ? ids : ['']);
    return q.execute();
  }

  async revision(ids: readonly string[] | null): Promise<string> {
    let q = this.ex
      .selectFrom('campaigns')
      .select((eb) => [eb.fn.countAll().as('n'), eb.fn.coalesce(eb.fn.sum('revision'), eb.lit(0)).as('sum')]);
    if (ids) q = q.where('id', 'in', ids.length > 0 ? ids : ['']);
    const row = await q.executeTakeFirstOrThrow();
    return `${row.n}:${row.sum}`;
  }

  async insert(row: CampaignRow): Promise<void> {
    await this.ex.insertInto('campaigns').values(row).execute();
  }

  async update(id: string, values: CampaignValues): Promise<void> {
    if (Object.keys(values).length > 0) await this.ex.updateTable('campaigns').set(values).where('id', '=', id).execute();
  }

  async notPlaced(id: string): Promise<number> {
    const row = await this.ex
      .updateTable('campaigns')
      .set((eb) => ({ not_placed_streak: eb('not_placed_streak', '+', 1) }))
      .where('id', '=', id)
      .returning('not_placed_streak')
      .executeTakeFirst();
    return Number(row?.not_placed_streak ?? 0);
  }

  async placed(id: string): Promise<void> {
    // only when there is a run to end: a busy campaign's every call would otherwise write the row
    await this.ex.updateTable('campaigns').set({ not_placed_streak: 0 }).where('id', '=', id).where('not_placed_streak', '>', 0).execute();
  }

  async lateNotPlaced(id: string, n: number, now: number, restartBefore: number, short: number): Promise<{ run: number; since: number }> {
    // both expressions read the row as it was
    const stale = sql<boolean>`(late_not_placed_since < ${restartBefore} and late_not_placed < ${short})`;
    const { rows } = await sql<{ late_not_placed: number; late_not_placed_since: number }>`update campaigns set
        late_not_placed = case when ${stale} then ${n} else late_not_placed + ${n} end,
        late_not_placed_since = case when late_not_placed_since is null or ${stale} then ${now} else late_not_placed_since end
      where id = ${id} returning late_not_placed, late_not_placed_since`.execute(this.ex);
    return { run: Number(rows[0]?.late_not_placed ?? 0), since: Number(rows[0]?.late_not_placed_since ?? now) };
  }

  async latePlaced(id: string): Promise<void> {
    // only when there is a run to end, as placed() does
    await this.ex
      .updateTable('campaigns')
      .set({ late_not_placed: 0, late_not_placed_since: null })
      .where('id', '=', id)
      .where('late_not_placed', '>', 0)
      .execute();
  }

  async pause(id: string, reason: string, now: number): Promise<void> {
    await this.ex
      .updateTable('campaigns')
      .set({ paused_at: now, paused_reason: reason })
      .where('id', '=', id)
      .where('paused_at', 'is', null)
      .execute();
  }

  async resume(id: string): Promise<boolean> {
    const result = await this.ex
      .updateTable('campaigns')
      .set({ paused_at: null, paused_reason: null, not_placed_streak: 0, late_not_placed: 0, late_not_placed_since: null })
      .where('id', '=', id)
      .where('paused_at', 'is not', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async callsInProgress(id: string): Promise<number> {
    // attempts_pending (migration 0024): the literal state matches the partial index
    const { rows } = await sql<{ n: number | string }>`select count(*) as n from attempts
      where campaign_id = ${id} and state <> 'closed'`.execute(this.ex);
    return Number(rows[0]?.n ?? 0);
  }

  async remove(id: string, now: number): Promise<{ leads: number; callsInProgress: number }> {
    let deleted = 0;
    // Batches in seq order, each starting after the last (leads_campaign_seq):
    // on PostgreSQL a scan from the campaign's start would step over every row
    // this transaction already deleted, again in each batch.
    for (let after = 0; ; ) {
      const rows = await this.ex
        .deleteFrom('leads')
        .where('seq', 'in', (eb) =>
          eb.selectFrom('leads').select('seq').where('campaign_id', '=', id).where('seq', '>', after).orderBy('seq').limit(REMOVE_BATCH),
        )
        .returning(['seq', 'id', 'external_id'])
        .execute();
      if (rows.length === 0) break;
      rows.sort((a, b) => Number(a.seq) - Number(b.seq));
      after = Number(rows.at(-1)!.seq);
      deleted += rows.length;
      // before the campaign row goes: the event's insert reads the company from it
      const items = leadItems(rows.map((r) => ({ id: r.id, externalId: r.external_id })));
      await this.events.append({ type: 'lead.deleted', campaignId: id, items, now });
      if (rows.length < REMOVE_BATCH) break;
    }
    // Counted again once the leads are gone: an attempt opened from here on finds its lead
    // deleted (QueueStore.open), and one opened before is seen here.
    const callsInProgress = await this.callsInProgress(id);
    if (callsInProgress > 0) return { leads: deleted, callsInProgress };
    await this.ex.deleteFrom('attempts').where('campaign_id', '=', id).execute();
    await this.ex.deleteFrom('api_keys').where('campaign_id', '=', id).execute();
    await this.ex.deleteFrom('campaigns').where('id', '=', id).execute();
    return { leads: deleted, callsInProgress: 0 };
  }
}
