/** The dialers table: each running dialer's heartbeat. The same Kysely statements serve both databases. */
import { sql } from 'kysely';
import type { Db, Executor } from '../db/index.js';
import type { DialerTable } from '../db/schema.js';

export type DialerRow = DialerTable;

/**
 * A dialer is live while its heartbeat (every 5 s) is younger than this:
 * `dialer status` lists it, and an attempt of it whose lead was deleted is
 * taken as followed (store/shared/in-flight.ts).
 */
export const DIALER_LIVE_MS = 15_000;

export interface DialerStore {
  /** writes the dialer's row (inserted on the first beat) */
  beat(row: DialerRow): Promise<void>;
  remove(id: string): Promise<void>;
  /** the dialers whose last beat is at or after `since`, oldest first */
  live(since: number): Promise<DialerRow[]>;
  /** forgets dialers silent since before `before` (crashed ones) */
  prune(before: number): Promise<void>;
  /**
   * The database's clock (epoch ms) on PostgreSQL, where dialers on several
   * hosts share it, to compare with the dialer's own (src/dialer/clock-guard.ts);
   * null on SQLite, which every dialer reaches on one host, one clock.
   */
  clock(): Promise<number | null>;
}

export class KyselyDialerStore implements DialerStore {
  constructor(
    private readonly ex: Executor,
    private readonly dialect: Db['dialect'],
  ) {}

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

  async clock(): Promise<number | null> {
    if (this.dialect !== 'postgres') return null;
    // clock_timestamp(), not now(): now() is the transaction's start, and stands still in one
    const { rows } = await sql<{ ms: number }>`select (extract(epoch from clock_timestamp()) * 1000)::float8 as ms`.execute(this.ex);
    return Number(rows[0]!.ms);
  }
}
