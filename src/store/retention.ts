/**
 * `leadline purge` (src/compliance/purge.ts): a company's call log before a
 * date, a chunk at a time so that no transaction holds a large table for
 * long. Written once for both databases.
 */
import { sql } from 'kysely';
import type { Executor } from '../db/index.js';
import { type Digester, removeNumbers } from './digests.js';

export interface PurgedChunk {
  /** attempts deleted */
  deleted: number;
  /** attempts kept because the call caps still count them, their numbers replaced by digests */
  anonymised: number;
}

/**
 * Up to `limit` of the company's closed attempts started before `before`
 * are deleted, or, when one still counts towards a call cap (a call placed
 * after `countedSince`), kept with its number replaced by its digest: a
 * purge must not let a number be called again sooner than its caps allow.
 * Attempts still open (a call in progress) are left alone. Run it in a
 * transaction, again until it changes nothing.
 */
export async function purgeAttempts(
  ex: Executor,
  digest: Digester,
  o: { companyId: string; before: number; countedSince: number | null; limit: number },
): Promise<PurgedChunk> {
  const old = sql`a.company_id = ${o.companyId} and a.started_at < ${o.before} and a.state = 'closed'`;
  const counted = o.countedSince === null ? null : sql`a.counts = 1 and a.started_at > ${o.countedSince}`;
  const { rows: gone } = await sql<{ id: number }>`select a.id from attempts a
    where ${old} ${counted === null ? sql`` : sql`and not (${counted})`} limit ${o.limit}`.execute(ex);
  if (gone.length > 0)
    await ex
      .deleteFrom('attempts')
      .where(
        'id',
        'in',
        gone.map((r) => Number(r.id)),
      )
      .execute();
  let anonymised = 0;
  if (counted !== null) {
    const { rows: kept } = await sql<{ id: number }>`select a.id from attempts a
      where ${old} and ${counted} and a.phone_number is not null limit ${o.limit}`.execute(ex);
    if (kept.length > 0) anonymised = await removeNumbers(ex, digest, sql<boolean>`a.id in (${sql.join(kept.map((r) => Number(r.id)))})`);
  }
  return { deleted: gone.length, anonymised };
}

/** the company's attempts started before `before` that are still open: a purge leaves them */
export async function openBefore(ex: Executor, companyId: string, before: number): Promise<number> {
  const row = await ex
    .selectFrom('attempts')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('company_id', '=', companyId)
    .where('started_at', '<', before)
    .where('state', '<>', 'closed')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
