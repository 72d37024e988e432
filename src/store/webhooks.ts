/**
 * The webhooks and webhook_deliveries tables (migration 0012): a company's
 * endpoints, each with its position in the events and the lease of the
 * `leadline serve` delivering to it, and the log of every try. The same
 * statements serve both databases but for the claim's row locks.
 */
import { type RawBuilder, sql } from 'kysely';
import type { Executor } from '../db/index.js';
import type { WebhookDeliveryTable, WebhookTable } from '../db/schema.js';
import type { Position } from './events.js';

export type WebhookRow = WebhookTable;
export type DeliveryRow = Omit<WebhookDeliveryTable, 'id'> & { id: number };
export type NewDelivery = Omit<WebhookDeliveryTable, 'id'>;

/** what one round of deliveries changed on the endpoint */
export interface Settlement {
  position: Position;
  tries: number;
  nextTryAt: number;
  failingSince: number | null;
  /** set when the endpoint is disabled by this round */
  disabled?: { at: number; reason: string };
  deliveries: readonly NewDelivery[];
}

export interface WebhookStore {
  create(row: WebhookRow): Promise<void>;
  byId(id: string): Promise<WebhookRow | undefined>;
  list(companyId: string): Promise<WebhookRow[]>;
  remove(id: string): Promise<boolean>;
  setSecret(id: string, secret: string): Promise<boolean>;
  /** enables (clearing the failure run) or disables the endpoint */
  setEnabled(id: string, enabled: { reason: string; at: number } | null, now: number): Promise<boolean>;
  /** moves the endpoint's position (replay), due at once, in a new generation */
  rewind(id: string, position: Position, now: number): Promise<boolean>;
  /** what a round reads before each message: the secret as stored now, and the generation (undefined: deleted) */
  sending(id: string): Promise<Pick<WebhookRow, 'secret' | 'generation'> | undefined>;
  /**
   * Leases up to `limit` enabled endpoints that are due and not leased by a
   * live owner: SKIP LOCKED on PostgreSQL, so instances claiming at once
   * take different endpoints.
   */
  claim(owner: string, now: number, leaseMs: number, limit: number): Promise<WebhookRow[]>;
  /**
   * Writes a round's outcome and keeps the lease, if `owner` still holds it
   * and the endpoint is still in `generation`. 'moved': a replay rewound it
   * meanwhile; only the tries are logged, the replay's position stays.
   * 'lost': another owner holds it, or it is gone; nothing is written.
   */
  settle(id: string, owner: string, generation: number, s: Settlement, leaseUntil: number): Promise<'settled' | 'moved' | 'lost'>;
  /** gives the lease back; `now` is kept as its end (claim serves the least recently leased first) */
  release(id: string, owner: string, now: number): Promise<void>;
  /** the latest tries first; `before`: only those logged before that try's id (the next page) */
  deliveries(webhookId: string, failedOnly: boolean, limit: number, before?: number): Promise<DeliveryRow[]>;
  /** deletes tries logged before `before`; how many */
  /** deletes up to `limit` tries logged before `before`; how many (repeated until fewer, as events.prune) */
  pruneDeliveries(before: number, limit: number): Promise<number>;
}

const nullable = (v: number | string | null) => (v === null ? null : Number(v));
const webhookRow = (r: WebhookRow): WebhookRow => ({
  ...r,
  created_at: Number(r.created_at),
  disabled_at: nullable(r.disabled_at),
  pos_tx: Number(r.pos_tx),
  pos_id: Number(r.pos_id),
  pos_n: Number(r.pos_n),
  tries: Number(r.tries),
  next_try_at: Number(r.next_try_at),
  failing_since: nullable(r.failing_since),
  lease_until: nullable(r.lease_until),
  generation: Number(r.generation),
});

export class KyselyWebhookStore implements WebhookStore {
  constructor(protected readonly ex: Executor) {}

  async create(row: WebhookRow): Promise<void> {
    await this.ex.insertInto('webhooks').values(row).execute();
  }

  async byId(id: string): Promise<WebhookRow | undefined> {
    const row = await this.ex.selectFrom('webhooks').selectAll().where('id', '=', id).executeTakeFirst();
    return row && webhookRow(row);
  }

  async list(companyId: string): Promise<WebhookRow[]> {
    const rows = await this.ex.selectFrom('webhooks').selectAll().where('company_id', '=', companyId).orderBy('created_at').execute();
    return rows.map(webhookRow);
  }

  async remove(id: string): Promise<boolean> {
    const r = await this.ex.deleteFrom('webhooks').where('id', '=', id).executeTakeFirst();
    if (Number(r.numDeletedRows) === 0) return false;
    await this.ex.deleteFrom('webhook_deliveries').where('webhook_id', '=', id).execute();
    return true;
  }

  private async update(id: string, set: Partial<WebhookRow>): Promise<boolean> {
    const r = await this.ex.updateTable('webhooks').set(set).where('id', '=', id).executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  setSecret(id: string, secret: string): Promise<boolean> {
    return this.update(id, { secret });
  }

  setEnabled(id: string, disabled: { reason: string; at: number } | null, now: number): Promise<boolean> {
    if (disabled) return this.update(id, { disabled_at: disabled.at, disabled_reason: disabled.reason });
    return this.update(id, { disabled_at: null, disabled_reason: null, failing_since: null, tries: 0, next_try_at: now });
  }

  async rewind(id: string, p: Position, now: number): Promise<boolean> {
    const r = await this.ex
      .updateTable('webhooks')
      .set((eb) => ({ pos_tx: p.tx, pos_id: p.id, pos_n: p.n, tries: 0, next_try_at: now, generation: eb('generation', '+', 1) }))
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  async sending(id: string): Promise<Pick<WebhookRow, 'secret' | 'generation'> | undefined> {
    const row = await this.ex.selectFrom('webhooks').select(['secret', 'generation']).where('id', '=', id).executeTakeFirst();
    return row && { secret: row.secret, generation: Number(row.generation) };
  }

  /** the row locks a claim takes: none where one writer runs at a time (SQLite) */
  protected skipLocked(): RawBuilder<unknown> {
    return sql``;
  }

  /**
   * The due endpoints leased least recently first (never leased, then by when their last lease
   * ended: release keeps that instant), so that every due endpoint gets its turn. Ordered by
   * next_try_at, endpoints with nothing to send (whose rows a round leaves as they were) came
   * first in every round, and past `limit` of them the others were never leased.
   */
  async claim(owner: string, now: number, leaseMs: number, limit: number): Promise<WebhookRow[]> {
    const { rows } = await sql<WebhookRow>`update webhooks set lease_owner = ${owner}, lease_until = ${now + leaseMs}
      where id in (select id from webhooks where disabled_at is null and next_try_at <= ${now}
        and (lease_until is null or lease_until < ${now}) order by coalesce(lease_until, 0), next_try_at limit ${limit} ${this.skipLocked()})
      returning *`.execute(this.ex);
    return rows.map(webhookRow);
  }

  async settle(id: string, owner: string, generation: number, s: Settlement, leaseUntil: number): Promise<'settled' | 'moved' | 'lost'> {
    const r = await this.ex
      .updateTable('webhooks')
      .set({
        pos_tx: s.position.tx,
        pos_id: s.position.id,
        pos_n: s.position.n,
        tries: s.tries,
        next_try_at: s.nextTryAt,
        failing_since: s.failingSince,
        lease_until: leaseUntil,
        ...(s.disabled ? { disabled_at: s.disabled.at, disabled_reason: s.disabled.reason } : {}),
      })
      .where('id', '=', id)
      .where('lease_owner', '=', owner)
      .where('generation', '=', generation)
      .executeTakeFirst();
    let outcome: 'settled' | 'moved' = 'settled';
    if (Number(r.numUpdatedRows) === 0) {
      // only on the rare miss: still ours but replayed (the tries did happen: log them), or lost
      const row = await this.ex.selectFrom('webhooks').select('lease_owner').where('id', '=', id).executeTakeFirst();
      if (row?.lease_owner !== owner) return 'lost';
      outcome = 'moved';
    }
    if (s.deliveries.length > 0)
      await this.ex
        .insertInto('webhook_deliveries')
        .values([...s.deliveries])
        .execute();
    return outcome;
  }

  /** ends the lease at `now`, which stays as the lease's end: claim serves the least recently leased first */
  async release(id: string, owner: string, now: number): Promise<void> {
    await this.ex
      .updateTable('webhooks')
      .set({ lease_owner: null, lease_until: now })
      .where('id', '=', id)
      .where('lease_owner', '=', owner)
      .execute();
  }

  async deliveries(webhookId: string, failedOnly: boolean, limit: number, before?: number): Promise<DeliveryRow[]> {
    let q = this.ex.selectFrom('webhook_deliveries').selectAll().where('webhook_id', '=', webhookId);
    if (failedOnly) q = q.where('ok', '=', 0);
    if (before !== undefined) q = q.where('id', '<', before);
    const rows = await q.orderBy('id', 'desc').limit(limit).execute();
    return rows.map((r) => ({
      ...r,
      id: Number(r.id),
      try: Number(r.try),
      ok: Number(r.ok),
      status_code: nullable(r.status_code),
      latency_ms: Number(r.latency_ms),
      created_at: Number(r.created_at),
    }));
  }

  async pruneDeliveries(before: number, limit: number): Promise<number> {
    const ids = await this.ex.selectFrom('webhook_deliveries').select('id').where('created_at', '<', before).limit(limit).execute();
    if (ids.length === 0) return 0;
    const r = await this.ex
      .deleteFrom('webhook_deliveries')
      .where(
        'id',
        'in',
        ids.map((x) => Number(x.id)),
      )
      .executeTakeFirst();
    return Number(r.numDeletedRows);
  }
}

/** PostgreSQL: instances claiming at once skip each other's rows instead of waiting on them */
export class PostgresWebhookStore extends KyselyWebhookStore {
  protected override skipLocked(): RawBuilder<unknown> {
    return sql`for update skip locked`;
  }
}
