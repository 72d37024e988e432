/**
 * PostgreSQL: autovacuum analyzes `leads` after 1% of it has changed instead
 * of 10%. Plans for a campaign come from these statistics; with the default,
 * a campaign created or grown since the last analyze stays unknown until a
 * tenth of the table has changed (100,000 leads in a million-lead table), and
 * the planner estimates it at one row. The duplicate lookup no longer depends
 * on that (src/leads/repository.ts, matching()), but the list pages and the
 * dialer's claim read per-campaign estimates too. An analyze reads a sample of
 * about 30,000 rows whatever the table's size, and autovacuum visits a table
 * at most once per `autovacuum_naptime` (1 min), so the cost stays small.
 * docs/operations.md, "PostgreSQL statistics". SQLite: nothing to do.
 */
import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../index.js';

export function leadsAnalyze(dialect: Dialect) {
  return {
    async up(db: Kysely<any>) {
      if (dialect !== 'postgres') return;
      await sql`alter table leads set (autovacuum_analyze_scale_factor = 0.01)`.execute(db);
    },
  };
}
