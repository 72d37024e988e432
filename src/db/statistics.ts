/**
 * PostgreSQL: `leads` analyzed once, if nothing has analyzed it yet.
 *
 * PostgreSQL plans from statistics that only ANALYZE gathers. Until `leads`
 * has been analyzed once it has none at all, and the planner served a list
 * page by reading the whole campaign through another of its indexes
 * (`leads_campaign_external_id`) and sorting it: a `limit=1` page of a
 * 5,000-lead campaign took 2.3 ms against 0.13 ms through `leads_campaign_seq`
 * once analyzed, and the sort grows with the campaign. Any analyze fixes it,
 * even one taken before the campaign existed; one of the empty table does not.
 * Autovacuum analyzes a table within a minute of its first rows where it is
 * on (the default); this covers that minute, and databases where it is off,
 * whose later analyzes stay the operator's (docs/operations.md, "PostgreSQL
 * statistics"). Once statistics exist it never runs again.
 */
import { type Kysely, sql } from 'kysely';
import type { Database } from './schema.js';

type Found = 'has statistics' | 'empty' | 'analyzed';

/** analyzes `leads` when it holds rows and PostgreSQL has no statistics of it */
export async function analyzeLeadsIfNever(kysely: Kysely<Database>): Promise<Found> {
  if (await hasStatistics(kysely)) return 'has statistics';
  const { rows } = await sql<{ any: boolean }>`select exists (select 1 from leads) as any`.execute(kysely);
  if (!rows[0]?.any) return 'empty';
  // A role that does not own the table gets a warning, not an error, and no statistics
  await sql`analyze leads`.execute(kysely);
  if (!(await hasStatistics(kysely))) throw new Error('ANALYZE leads gathered no statistics: is the role the owner of leads?');
  return 'analyzed';
}

/**
 * Checks now and every `everyMs` until `leads` has statistics: two index
 * probes every 5 s while it is empty, so that a first import is analyzed
 * within seconds (at a minute, the bench's first minute of pages still
 * sorted: row 5's PostgreSQL list at 0.16x). A failure (the database away, a
 * role that does not own the table and may not analyze it) is reported the
 * first time only, and checked again at the next turn.
 */
export function keepLeadStatistics(kysely: Kysely<Database>, onError: (err: unknown) => void, everyMs = 5_000): () => Promise<void> {
  let stopped = false;
  let reported = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const check = async () => {
    let again = true;
    try {
      again = (await analyzeLeadsIfNever(kysely)) === 'empty';
    } catch (err) {
      if (!reported && !stopped) onError(err);
      reported = true;
    }
    if (again && !stopped) timer = setTimeout(() => (running = check()), everyMs).unref();
  };
  running = check();
  return async () => {
    stopped = true;
    clearTimeout(timer);
    await running;
  };
}

async function hasStatistics(kysely: Kysely<Database>): Promise<boolean> {
  const { rows } = await sql<{ known: boolean }>`
    select exists (
      select 1 from pg_stats where schemaname = current_schema() and tablename = 'leads' and attname = 'campaign_id'
    ) as known`.execute(kysely);
  return rows[0]?.known === true;
}
