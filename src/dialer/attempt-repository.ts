/**
 * Recording attempts: the lead moves (attempting → attempting | exhausted |
 * concluded, as lifecycle.ts decides) and the attempt row is written, in
 * one step, for many finished calls at once.
 *
 * Why batches: with short calls the database spends more on the round trip,
 * the planning and the commit of each tiny statement than on the rows
 * themselves. One statement for every call that finished while the
 * previous batch was being written (recorder.ts) turns hundreds of commits
 * a second into a handful.
 */
import { sql } from 'kysely';
import type { Db } from '../db/index.js';
import { type LeadStatus, nextStatus } from './lifecycle.js';
import type { ClaimedLead } from './repository.js';

export interface AttemptRecord {
  success: boolean;
  outcome: string;
  /** the number dialled; null when there was none to dial */
  phoneNumber: string | null;
  reason: string | null;
  startedAt: number;
  finishedAt: number;
  /** the campaign's retry delay, for a failed attempt with attempts left */
  retryDelayMs: number;
}

export type AttemptResult =
  | { result: 'recorded'; status: LeadStatus; attempt: number }
  /** the lead was deleted during the call: nothing is written, nothing resurrected */
  | { result: 'gone' }
  /** the claim lapsed and was taken over, or was released: its holder writes */
  | { result: 'claim lost' };

/** One attempt, its move already decided; the columns of the batch statement. */
export interface PlannedAttempt {
  seq: number;
  leadId: string;
  campaignId: string;
  worker: string;
  claimedAt: number;
  from: LeadStatus;
  to: LeadStatus;
  /** attempts before this one; the number of this one is prev + 1 */
  prev: number;
  next: string | null;
  startedAt: number;
  finishedAt: number;
  success: number;
  outcome: string;
  phone: string | null;
  reason: string | null;
}

/** Decides the move; throws LifecycleError, writing nothing, when the table refuses it. */
export function planAttempt(lead: ClaimedLead, a: AttemptRecord): PlannedAttempt {
  const from = nextStatus(lead.previousStatus, 'claim');
  const attempt = lead.attempts + 1;
  const to = nextStatus(from, a.success ? 'succeed' : 'fail', { attempts: attempt, maxAttempts: lead.maxAttempts });
  return {
    seq: lead.seq,
    leadId: lead.id,
    campaignId: lead.campaignId,
    worker: lead.claimedBy,
    claimedAt: lead.claimedAt,
    from,
    to,
    prev: lead.attempts,
    next: to === 'attempting' ? new Date(a.finishedAt + a.retryDelayMs).toISOString() : null,
    startedAt: a.startedAt,
    finishedAt: a.finishedAt,
    success: a.success ? 1 : 0,
    outcome: a.outcome,
    phone: a.phoneNumber,
    reason: a.reason,
  };
}

/** Records one attempt (see recordAttempts). */
export async function recordAttempt(db: Db, lead: ClaimedLead, a: AttemptRecord): Promise<AttemptResult> {
  return (await recordAttempts(db, [planAttempt(lead, a)]))[0]!;
}

/**
 * Writes a batch of attempts; a lead moves, and its attempt row is written,
 * only while the claim is still the one the call was made under.
 */
export async function recordAttempts(db: Db, batch: readonly PlannedAttempt[]): Promise<AttemptResult[]> {
  if (batch.length === 0) return [];
  const recorded = db.dialect === 'postgres' ? await writePostgres(db, batch) : await writeSqlite(db, batch);
  const missing = batch.filter((p) => !recorded.has(p.seq)).map((p) => p.seq);
  const present = new Set<number>();
  if (missing.length > 0) {
    const rows = await db.kysely.selectFrom('leads').select('seq').where('seq', 'in', missing).execute();
    for (const r of rows) present.add(Number(r.seq));
  }
  return batch.map((p) =>
    recorded.has(p.seq) ? { result: 'recorded', status: p.to, attempt: p.prev + 1 } : present.has(p.seq) ? { result: 'claim lost' } : { result: 'gone' },
  );
}

const DEADLOCK = '40P01';

/**
 * One statement for the whole batch: the attempt rows exist exactly for the
 * leads that moved. A bulk delete of the same leads can take their row locks
 * in another order; PostgreSQL then aborts one side, and this side retries.
 */
async function writePostgres(db: Db, batch: readonly PlannedAttempt[]): Promise<Set<number>> {
  const json = JSON.stringify(batch);
  for (let attempt = 1; ; attempt++) {
    try {
      const { rows } = await sql<{ seq: number }>`
        with input as (
          select * from json_to_recordset(${json}::json) as i(
            seq bigint, "leadId" text, "campaignId" text, worker text, "claimedAt" bigint, "from" text, "to" text,
            prev int, next text, "startedAt" bigint, "finishedAt" bigint, success int, outcome text, phone text, reason text)
        ),
        moved as (
          update leads l
          set status = i."to", attempts = i.prev + 1, claimed_by = null, claimed_at = null, next_attempt_at = i.next
          from input i
          where l.seq = i.seq and l.claimed_by = i.worker and l.claimed_at = i."claimedAt"
            and l.status = i."from" and l.attempts = i.prev
          returning l.seq
        ),
        written as (
          insert into attempts (lead_id, campaign_id, attempt, started_at, finished_at, success, outcome, phone_number, reason, worker)
          select i."leadId", i."campaignId", i.prev + 1, i."startedAt", i."finishedAt", i.success, i.outcome, i.phone, i.reason, i.worker
          from input i join moved m on m.seq = i.seq
        )
        select seq from moved`.execute(db.kysely);
      return new Set(rows.map((r) => Number(r.seq)));
    } catch (err) {
      if (attempt >= 3 || (err as { code?: string }).code !== DEADLOCK) throw err;
    }
  }
}

/** SQLite has one writer at a time: the whole batch is one immediate transaction. */
function writeSqlite(db: Db, batch: readonly PlannedAttempt[]): Promise<Set<number>> {
  return db.writeTx(async (tx) => {
    const done = new Set<number>();
    for (const p of batch) {
      const { numAffectedRows } = await sql`update leads
        set status = ${p.to}, attempts = ${p.prev + 1}, claimed_by = null, claimed_at = null, next_attempt_at = ${p.next}
        where seq = ${p.seq} and claimed_by = ${p.worker} and claimed_at = ${p.claimedAt} and status = ${p.from} and attempts = ${p.prev}`.execute(tx);
      if (!numAffectedRows) continue;
      await sql`insert into attempts (lead_id, campaign_id, attempt, started_at, finished_at, success, outcome, phone_number, reason, worker)
        values (${p.leadId}, ${p.campaignId}, ${p.prev + 1}, ${p.startedAt}, ${p.finishedAt}, ${p.success}, ${p.outcome}, ${p.phone}, ${p.reason}, ${p.worker})`.execute(tx);
      done.add(p.seq);
    }
    return done;
  });
}
