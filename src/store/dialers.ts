/** The dialers table: each running dialer's heartbeat. The same Kysely statements serve both databases. */
import type { Executor } from '../db/index.js';
import type { DialerTable } from '../db/schema.js';

export type DialerRow = DialerTable;

export interface DialerStore {
  /** writes the dialer's row (inserted on the first beat) */
  beat(row: DialerRow): Promise<void>;
  remove(id: string): Promise<void>;
  /** the dialers whose last beat is at or after `since`, oldest first */
  live(since: number): Promise<DialerRow[]>;
  /** forgets dialers silent since before `before` (crashed ones) */
  prune(before: number): Promise<void>;
}

export class KyselyDialerStore implements DialerStore {
  constructor(private readonly ex: Executor) {}

  async beat(row: DialerRow): Promise<void> {
    const { id, ...rest } = row;
    await this.ex
      .insertInto('dialers')
      .values(row)
      .onConflict((oc) => oc.column('id').doUpdateSet(rest))
      .execute();
  }

  async remove(id: string): Promise<void> {
    await this.ex.deleteFrom('dialers').where('id', '=', id).execute();
  }

  async live(since: number): Promise<DialerRow[]> {
    const rows = await this.ex.selectFrom('dialers').selectAll().where('heartbeat_at', '>=', since).orderBy('started_at').execute();
    return rows.map((r) => ({
      ...r,
      pid: Number(r.pid),
      started_at: Number(r.started_at),
      heartbeat_at: Number(r.heartbeat_at),
      calls_in_flight: Number(r.calls_in_flight),
      last_claim_at: r.last_claim_at === null ? null : Number(r.last_claim_at),
    }));
  }

  async prune(before: number): Promise<void> {
    await this.ex.deleteFrom('dialers').where('heartbeat_at', '<', before).execute();
  }
}
