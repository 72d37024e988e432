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

/**
 * The database's own random key (number_digest_key, migration 0015), read
 * through `ex` the first time. The number digests use it as it is; the list
 * cursors (src/leads/cursor.ts) derive keys of their own from it.
 */
export async function databaseKey(db: Db, ex: Executor): Promise<Buffer> {
  let key = keys.get(db);
  if (!key) {
    const row = await ex.selectFrom('number_digest_key').select('key').where('id', '=', 1).executeTakeFirstOrThrow();
    key = Buffer.from(row.key, 'hex');
    keys.set(db, key);
  }
  return key;
}

/** the digests of the numbers in `db`, its key read through `ex` the first time */
export function digester(db: Db, ex: Executor): Digester {
  return async (companyId, phoneNumber) => numberDigest(await databaseKey(db, ex), companyId, phoneNumber);
}

/** ids per statement: well under both databases' limits on bound values */
const CHUNK = 500;

/** attempts per update: their ids and numbers stay well under both databases' limits on bound values */
const ROWS_PER_UPDATE = 2000;

/**
 * Removes the numbers of the attempts `which` selects (a condition on the
 * attempts table `a`): each number is replaced by its digest, and by
 * `[deleted]` where the attempt's reason quotes it. The attempts are read
 * once, then updated by primary key, a few thousand a statement: a statement
 * per number made a bulk delete of 1000 called leads 40 times slower than the
 * delete itself (0.6 s against 14 ms on SQLite). The number of attempts changed.
 */
export async function removeNumbers(ex: Executor, digest: Digester, which: Expression<boolean>): Promise<number> {
  const { rows } = await sql<{ id: number; company_id: string; phone_number: string }>`
    select a.id, a.company_id, a.phone_number from attempts a
    where ${which} and a.phone_number is not null order by a.company_id`.execute(ex);
  for (let at = 0; at < rows.length; at += ROWS_PER_UPDATE) {
    const part = rows.slice(at, at + ROWS_PER_UPDATE);
    // the digest per (company, number) of this part; the SET expressions read the row as it was, number included
    const digests = new Map<string, { companyId: string; phoneNumber: string; digest: string }>();
    for (const r of part) {
      const k = `${r.company_id} ${r.phone_number}`;
      if (!digests.has(k))
        digests.set(k, { companyId: r.company_id, phoneNumber: r.phone_number, digest: await digest(r.company_id, r.phone_number) });
    }
    const cases = [...digests.values()].map(
      (d) => sql`when company_id = ${d.companyId} and phone_number = ${d.phoneNumber} then ${d.digest}`,
    );
    await sql`update attempts
      set phone_digest = case ${sql.join(cases, sql` `)} end, phone_number = null, reason = replace(reason, phone_number, '[deleted]')
      where id in (${sql.join(part.map((r) => Number(r.id)))})`.execute(ex);
  }
  return rows.length;
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
