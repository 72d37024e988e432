import { PLANNED_WITH_VALUES } from './planned.js';

/**
 * Statement texts named for PostgreSQL's prepared statements: each connection
 * then parses a text once, and PostgreSQL may keep its plan (plan_cache_mode
 * auto: a generic plan once it costs no more than the custom ones). bench/,
 * PostgreSQL, 50 connections: list limit=1 0.46-0.50x -> 0.60-0.68x the floor
 * (which names its statements), single create 0.37x -> 0.50-0.54x; with
 * plan_cache_mode = force_custom_plan the create stayed at 0.40-0.41x, so the
 * kept plan is the gain, not the parse. Kysely sends the same text for the
 * same query shape; a shape that varies (an IN list of any length) would name
 * a text per length, so names stop at MAX_NAMED texts a pool and the rest go
 * unnamed, bounding what each server connection keeps. Off behind a
 * transaction-mode pooler (`?pgbouncer=true`), where the next transaction may
 * run on a server connection that never prepared the name.
 *
 * A statement that starts with PLANNED_WITH_VALUES is never named. A kept
 * generic plan is made with default estimates, and for a page the planner
 * then costs a sort of the whole campaign below reading leads_campaign_seq in
 * order: once ANALYZE had seen the campaign, the custom plans' costs rose
 * above it and auto mode switched (bench/, row 3, ~70 ms a page of 8000
 * against 24 ms; an 8000-lead page of the first of 9 analyzed campaigns
 * switched after its fifth run, an Incremental Sort of the campaign; the
 * page of a million-lead campaign would sort a million rows).
 */
export class StatementNames {
  private readonly names = new Map<string, string>();
  constructor(private readonly max = MAX_NAMED) {}

  nameOf(text: string): string | undefined {
    if (text.startsWith(PLANNED_WITH_VALUES)) return undefined;
    let name = this.names.get(text);
    if (name === undefined && this.names.size < this.max) this.names.set(text, (name = `leadline_${this.names.size}`));
    return name;
  }
}
const MAX_NAMED = 500;
