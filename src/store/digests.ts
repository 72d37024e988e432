/**
 * Numbers removed from the call log (a deleted lead's attempts, purged
 * attempts) are replaced by their keyed digest (src/crypto/number-digest.ts),
 * which the per-number call caps count. Written once for both databases.
 */
import { type Expression, sql } from 'kysely';
import { numberDigest } from '../crypto/number-digest.js';
import type { Db, Executor } from '../db/index.js';

/** the digest of a number in a company */
export type Digester = (companyId: string, phoneNumber: string) => Promise<string>;

/** the key never changes once the migration made it: read once per process and database */
const keys = new WeakMap<Db, Buffer>();

/** the digests of the numbers in `db`, its key read through `ex` the first time */
export function digester(db: Db, ex: Executor): Digester {
  return async (companyId, phoneNumber) => {
    let key = keys.get(db);
    if (!key) {
      const row = await ex.selectFrom('number_digest_key').select('key').where('id', '=', 1).executeTakeFirstOrThrow();
      key = Buffer.from(row.key, 'hex');
      keys.set(db, key);
    }
    return numberDigest(key, companyId, phoneNumber);
  };
}

/** ids per statement: well under both databases' limits on bound values */
const CHUNK = 500;

/**
 * Removes the numbers of the attempts `which` selects (a condition on the
 * attempts table `a`): each number is replaced by its digest, and by
 * `[deleted]` where the attempt's reason quotes it. One update per distinct
 * number, so a lead's attempts (one number, or a few from a predial
 * function) cost a read and an update or two. The number of attempts changed.
 */
export async function removeNumbers(ex: Executor, digest: Digester, which: Expression<boolean>): Promise<number> {
  const { rows } = await sql<{ company_id: string; phone_number: string }>`
    select distinct a.company_id, a.phone_number from attempts a
    where ${which} and a.phone_number is not null`.execute(ex);
  let changed = 0;
  for (const r of rows) {
    const d = await digest(r.company_id, r.phone_number);
    const result = await sql`update attempts as a
      set phone_digest = ${d}, phone_number = null, reason = replace(a.reason, ${r.phone_number}, '[deleted]')
      where ${which} and a.company_id = ${r.company_id} and a.phone_number = ${r.phone_number}`.execute(ex);
    changed += Number(result.numAffectedRows ?? 0);
  }
  return changed;
}

/**
 * Removes the numbers of the closed attempts of the leads `leadIds` (deleted
 * leads); the number of attempts changed. A call still in progress keeps its
 * number until it closes (SharedQueueStore.close removes it then): the
 * outcome may list the number on the do-not-call list, and a second call to
 * the same number is held back while it lasts.
 */
export async function removeLeadNumbers(ex: Executor, digest: Digester, leadIds: readonly string[]): Promise<number> {
  let changed = 0;
  for (let at = 0; at < leadIds.length; at += CHUNK) {
    const ids = leadIds.slice(at, at + CHUNK);
    changed += await removeNumbers(ex, digest, sql<boolean>`a.lead_id in (${sql.join(ids)}) and a.state = 'closed'`);
  }
  return changed;
}

/** removes the numbers of the attempts `attemptIds` (just closed) whose lead was deleted */
export async function removeOrphanNumbers(ex: Executor, digest: Digester, attemptIds: readonly string[]): Promise<number> {
  let changed = 0;
  for (let at = 0; at < attemptIds.length; at += CHUNK) {
    const ids = attemptIds.slice(at, at + CHUNK);
    changed += await removeNumbers(
      ex,
      digest,
      sql<boolean>`a.attempt_id in (${sql.join(ids)}) and a.state = 'closed' and not exists (select 1 from leads l where l.id = a.lead_id)`,
    );
  }
  return changed;
}
