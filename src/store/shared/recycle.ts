/**
 * `leadline campaign recycle` (and the dashboard's button): exhausted leads
 * get `grant` attempts again and move back to attempting; leads still
 * attempting but out of attempts because max_attempts was lowered just get
 * the attempts.
 *
 * A chunk of RECYCLE_CHUNK leads per write transaction (one event row each),
 * walked in seq order (leads_campaign_seq), as `leadline purge` and a
 * campaign's deletion do. As one transaction, a million-lead campaign held
 * SQLite's only write lock for 10-13 s, past every other process's
 * busy_timeout (5 s): the API's writes answered 503, the server stalled
 * (better-sqlite3 waits synchronously) and a dialer's closes failed too
 * (test/dialer/long-writer.test.ts). The price: a reader may see a recycle half
 * done (docs/dialer.md).
 */
import { sql } from 'kysely';
import type { Executor } from '../../db/index.js';
import { nextStatus } from '../../leads/lifecycle.js';
import type { EventItem, EventStore } from '../events.js';

/**
 * leads per transaction: each holds the write lock well under a second,
 * and a million leads take 200 of them
 */
const RECYCLE_CHUNK = 5000;

/** runs one chunk in a write transaction of its own */
type InWriteTx = <T>(chunk: (ex: Executor, events: EventStore) => Promise<T>) => Promise<T>;

interface Recycle {
  campaignId: string;
  maxAttempts: number;
  grant: number;
  now: number;
}

/** the number of leads recycled (both kinds) */
export async function recycleInChunks(inWriteTx: InWriteTx, r: Recycle): Promise<number> {
  return (
    (await walk(inWriteTx, (ex, events, after) => exhausted(ex, events, r, after))) +
    (await walk(inWriteTx, (ex, _, after) => outOfAttempts(ex, r, after)))
  );
}

/** chunks in seq order, each after the last one's highest seq, until one comes back short */
async function walk(inWriteTx: InWriteTx, chunk: (ex: Executor, events: EventStore, after: number) => Promise<number[]>): Promise<number> {
  let total = 0;
  for (let after = 0; ; ) {
    const seqs = await inWriteTx((ex, events) => chunk(ex, events, after));
    total += seqs.length;
    if (seqs.length < RECYCLE_CHUNK) return total;
    after = Math.max(...seqs);
  }
}

/** the next chunk's seqs: the campaign's leads matching `which`, after `after` */
const next = (r: Recycle, which: ReturnType<typeof sql>, after: number) => sql`seq in (select seq from leads
  where campaign_id = ${r.campaignId} and ${which} and seq > ${after} order by seq limit ${RECYCLE_CHUNK})`;

async function exhausted(ex: Executor, events: EventStore, r: Recycle, after: number): Promise<number[]> {
  const recycled = nextStatus('exhausted', 'recycle');
  const { rows } = await sql<{ seq: number; id: string; external_id: string | null }>`update leads
    set status = ${recycled}, extra_attempts = attempts + ${r.grant} - ${r.maxAttempts}, next_attempt_at = null
    where ${next(r, sql`status = 'exhausted'`, after)}
    returning seq, id, external_id`.execute(ex);
  rows.sort((a, b) => Number(a.seq) - Number(b.seq));
  const items: EventItem[] = rows.map((x) => ({ leadId: x.id, externalId: x.external_id, from: 'exhausted', to: recycled }));
  await events.append({ type: 'lead.status_changed', campaignId: r.campaignId, items, now: r.now });
  return rows.map((x) => Number(x.seq));
}

/** an updated lead leaves the condition (attempts < max + extra again): the keyset only keeps each chunk's walk short */
async function outOfAttempts(ex: Executor, r: Recycle, after: number): Promise<number[]> {
  const { rows } = await sql<{ seq: number }>`update leads
    set extra_attempts = attempts + ${r.grant} - ${r.maxAttempts}, next_attempt_at = null
    where ${next(r, sql`status = 'attempting' and claimed_by is null and attempts >= ${r.maxAttempts} + extra_attempts`, after)}
    returning seq`.execute(ex);
  return rows.map((x) => Number(x.seq));
}
