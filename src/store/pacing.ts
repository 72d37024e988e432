/**
 * The campaign_pacing table: --calls-per-second across every dialer process
 * sharing the database. A slot is reserved in one autocommit statement (an
 * upsert on the campaign's row), so it holds behind PgBouncer in transaction
 * mode: no lock or other session state outlives the statement.
 *
 * Time is the database's clock, never the dialer's: the statement reads its
 * clock once, and answers with how long until the slot rather than the slot's
 * instant, so dialers on hosts whose clocks disagree still space their calls
 * by the interval (a dialer whose clock ran a second behind would otherwise
 * start its calls a second late, or a second early if ahead, and crowd the
 * others'). What is left is the time the answer takes to reach the dialer, a
 * few milliseconds either way.
 */
import { type RawBuilder, sql } from 'kysely';
import type { Dialect, Executor } from '../db/index.js';

export interface PacingStore {
  /**
   * Reserves the campaign's next call slot: now, or `intervalMs` (whole ms)
   * after the slot reserved before it, whichever is later. Returns how long
   * until that slot, in ms (0: at once). A slot nobody uses is simply
   * skipped: the campaign calls less, never more. A campaign that no longer
   * exists reserves nothing (0).
   */
  reserve(campaignId: string, intervalMs: number): Promise<number>;
}

/** the database's clock in ms: the statement's start on PostgreSQL (one value all through it), 'now' on SQLite (fixed per step) */
const CLOCK: Record<Dialect, RawBuilder<number>> = {
  postgres: sql<number>`(extract(epoch from statement_timestamp()) * 1000)::bigint`,
  sqlite: sql<number>`cast(round((julianday('now') - 2440587.5) * 86400000) as integer)`,
};

const LATER: Record<Dialect, string> = { postgres: 'greatest', sqlite: 'max' };

export class KyselyPacingStore implements PacingStore {
  private readonly clock: RawBuilder<number>;
  private readonly later: string;

  constructor(
    private readonly ex: Executor,
    dialect: Dialect,
  ) {
    this.clock = CLOCK[dialect];
    this.later = LATER[dialect];
  }

  async reserve(campaignId: string, intervalMs: number): Promise<number> {
    const clock = this.clock;
    // next_call_at is when the call after this one may start: max(its old value, now) + interval
    const row = await this.ex
      .insertInto('campaign_pacing')
      .columns(['campaign_id', 'next_call_at'])
      .expression((eb) =>
        eb
          .selectFrom('campaigns')
          .select(['id', sql<number>`${clock} + ${intervalMs}`.as('next_call_at')])
          .where('id', '=', campaignId),
      )
      .onConflict((oc) =>
        oc.column('campaign_id').doUpdateSet({
          next_call_at: sql<number>`${sql.raw(this.later)}(campaign_pacing.next_call_at + ${intervalMs}, excluded.next_call_at)`,
        }),
      )
      .returning(sql<number>`next_call_at - ${intervalMs} - ${clock}`.as('wait_ms'))
      .executeTakeFirst();
    return row ? Math.max(0, Number(row.wait_ms)) : 0;
  }
}
