/**
 * The claim reads the due index: no full scan of leads, however large the
 * campaign, and the do-not-call anti-join probes the list's primary key once
 * per lead read, however long the list.
 */
import { type CompiledQuery, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/index.js';
import { parseLocalWindow } from '../../src/scheduling/hours.js';
import { claimPlan } from '../../src/dialer/claim.js';
import { createDb, type Executor } from '../../src/db/index.js';
import { awaitingCount, claimTxOptions } from '../../src/store/shared/claims.js';
import { inFlightStatement } from '../../src/store/shared/in-flight.js';
import { availableStores, createTestStore, type TestStore } from '../helpers/db.js';
import { makeCampaign, seedPlanCampaign } from './support.js';

/** SQLite: the leads are read through the due index, the list through its key, the campaign through its own (twice), and nothing is sorted */
function expectSqlitePlan(plan: string[]) {
  // (the local window's list of open zones is read with json_each)
  const searches = plan.filter((line) => /\b(SCAN|SEARCH)\b/.test(line) && !line.includes('json_each'));
  const of = (table: string) => searches.filter((line) => new RegExp(`(SCAN|SEARCH) ${table}\\b`).test(line));
  expect(of('leads')).toHaveLength(2);
  expect(of('leads').every((line) => line.includes('USING') && line.includes('INDEX leads_due'))).toBe(true);
  expect(of('d')).toEqual([
    expect.stringMatching(/SEARCH d USING (COVERING )?INDEX sqlite_autoindex_dnc_1 \(company_id=\? AND phone_number=\?\)/),
  ]);
  // the campaign's company (the do-not-call list) and its consent setting: each read once per statement
  expect(of('campaigns')).toEqual([
    expect.stringMatching(/SEARCH campaigns USING INDEX/),
    expect.stringMatching(/SEARCH campaigns USING INDEX/),
  ]);
  expect(searches).toHaveLength(5);
  expect(plan.join('\n')).not.toMatch(/USE TEMP B-TREE/);
}

/** rows g(i) for i in 1..n, on either database */
const series = (kind: string, n: number) =>
  kind === 'postgres'
    ? sql`generate_series(1, ${sql.lit(n)}) g(i)`
    : sql`(with recursive r(i) as (select 1 union all select i + 1 from r where i < ${sql.lit(n)}) select i from r) g`;

/** the plan of a compiled statement, as text: PostgreSQL's as it ran (EXPLAIN ANALYZE), SQLite's query plan */
async function planOf(ex: Executor, kind: string, statement: CompiledQuery): Promise<string> {
  const explain = kind === 'postgres' ? 'explain (analyze, costs off, timing off, summary off)' : 'explain query plan';
  const { rows } = await ex.executeQuery<Record<string, unknown>>({ ...statement, sql: `${explain} ${statement.sql}` });
  return rows.map((r) => String(r['QUERY PLAN'] ?? r.detail)).join('\n');
}

describe.each(await availableStores())('the claim plan on %s', (kind) => {
  let store: TestStore;
  let db: Store;
  let campaignId: string;
  beforeAll(async () => {
    store = await createTestStore(kind);
    db = await store.open();
    campaignId = await seedPlanCampaign(db);
  });
  afterAll(async () => {
    await db?.close();
    await store?.drop();
  });

  it('uses the due index for both the priority walk and the due range', async () => {
    const plan = await claimPlan(db, { campaignId, maxAttempts: 3, workerId: 'w', limit: 10, now: Date.now(), leaseMs: 60_000 });
    const text = plan.join('\n');
    if (kind === 'postgres') {
      expect(text).not.toMatch(/Seq Scan on (leads|dnc)/);
      expect(text).toMatch(/Index Only Scan Backward using leads_due/);
      expect(text).toMatch(/Index Scan using leads_due/);
      expect(text).toMatch(/Index Only Scan using dnc_pkey on dnc/);
      expect(text).toMatch(/LockRows/);
    } else {
      expectSqlitePlan(plan);
    }
  });

  it("checks the called person's local window on the rows the same walk reads, without a sort", async () => {
    const local = { window: parseLocalWindow('08:00-21:00'), windowSpec: '08:00-21:00', timezone: 'UTC' };
    // 10:00 in Los Angeles, where the seeded +1415 numbers are
    const now = Date.parse('2026-03-10T17:00:00Z');
    // Twice: with statistics from before the dialer worked out the zones (all NULL), and fresh.
    for (const fresh of [false, true]) {
      if (fresh) await sql`analyze`.execute(db.kysely);
      const plan = await claimPlan(db, { campaignId, maxAttempts: 3, workerId: 'w', limit: 10, now, leaseMs: 60_000, local });
      const text = plan.join('\n');
      if (kind === 'postgres') {
        expect(text).not.toMatch(/Seq Scan on (leads|dnc)/);
        expect(text).toMatch(/Index Only Scan Backward using leads_due/);
        expect(text).toMatch(/Index Scan using leads_due/);
        expect(text).toMatch(/Filter: .*array_position\(.*local_zones\)/);
        expect(text).not.toMatch(/Sort/);
        expect(text).toMatch(/LockRows/);
      } else {
        expectSqlitePlan(plan);
      }
    }
  });

  it('with --require-consent, checks consentAt on the rows the same walk reads, without a sort', async () => {
    await db.campaigns.update(campaignId, { require_consent: 1 });
    try {
      const plan = await claimPlan(db, { campaignId, maxAttempts: 3, workerId: 'w', limit: 10, now: Date.now(), leaseMs: 60_000 });
      const text = plan.join('\n');
      if (kind === 'postgres') {
        expect(text).not.toMatch(/Seq Scan on (leads|dnc)/);
        expect(text).toMatch(/Index Scan using leads_due/);
        expect(text).toMatch(/Filter: .*consentAt/);
        expect(text).not.toMatch(/Sort/);
      } else {
        expectSqlitePlan(plan);
      }
    } finally {
      await db.campaigns.update(campaignId, { require_consent: 0 });
    }
  });

  it("counts a full campaign's awaited outcomes from the partial index, not from its history of attempts", async () => {
    // 5,000 closed attempts of the campaign and two awaited ones
    const { company_id } = (await db.campaigns.byId(campaignId))!;
    await sql`insert into attempts (attempt_id, lead_id, campaign_id, company_id, attempt, state, started_at, phone_number, worker, success)
      select 'at_plan_' || g.i, 'ld_' || ${campaignId} || '_' || g.i, ${campaignId}, ${company_id}, 1,
             case when g.i > 5000 then 'accepted' else 'closed' end, g.i, '+14155550000', 'w', 0
      from ${series(kind, 5002)}`.execute(db.kysely);
    await sql`analyze`.execute(db.kysely);
    const statement = awaitingCount(db.kysely, campaignId).compile();
    const text = await planOf(db.kysely, kind, statement);
    expect(text).toMatch(/attempts_pending/);
    expect(text).not.toMatch(/Seq Scan|SCAN attempts\b|attempts_campaign_started/);
    expect(Number((await awaitingCount(db.kysely, campaignId).executeTakeFirst())?.n)).toBe(2);
  });

  it("counts the calls in flight whose lead was deleted from the attempts not closed, not from the campaign's history", async () => {
    // a history of 5,000 closed attempts, and three open ones whose leads are gone, one past its deadline
    const { company_id } = (await db.campaigns.byId(campaignId))!;
    const now = Date.now();
    await sql`insert into attempts (attempt_id, lead_id, campaign_id, company_id, attempt, state, started_at, phone_number, worker, success)
      select 'at_history_' || g.i, 'ld_history_' || g.i, ${campaignId}, ${company_id}, 1, 'closed', g.i, '+14155550000', 'w', 0
      from ${series(kind, 5000)}`.execute(db.kysely);
    for (const [i, deadline] of [now + 60_000, now + 60_000, now - 1].entries())
      await sql`insert into attempts (attempt_id, lead_id, campaign_id, company_id, attempt, state, started_at, phone_number, worker, success, deadline_at)
        values (${`at_gone_${i}`}, ${`ld_gone_${i}`}, ${campaignId}, ${company_id}, 1, 'open', ${now}, '+14155550000', 'w', 0, ${deadline})`.execute(
        db.kysely,
      );
    await sql`analyze`.execute(db.kysely);
    const statement = inFlightStatement(db, campaignId, now).compile(db.kysely);
    const text = await planOf(db.kysely, kind, statement);
    // either index of the attempts not closed: with statistics this fresh, all of them together are few
    expect(text).toMatch(/attempts_(pending|open)/);
    expect(text).toMatch(/leads_claimed/);
    expect(text).not.toMatch(/Seq Scan on (attempts|leads)|SCAN (attempts|leads|a|l)\b(?! USING)|attempts_campaign_started/);
    expect(await db.queue.inFlight(campaignId, now)).toBe(2);
    await sql`delete from attempts where attempt_id like 'at_gone_%' or attempt_id like 'at_history_%'`.execute(db.kysely);
  });

  it('counts them from the attempts not closed before statistics know the campaign has a history (bench row 7: every claim read it)', async () => {
    // The statistics are from before the campaign's calls (autovacuum off, or not yet come round): a
    // campaign_id looks rare in attempts, and its history index looked as cheap as the partial one.
    const fresh = await makeCampaign(db);
    const { company_id } = (await db.campaigns.byId(fresh))!;
    const now = Date.now();
    await sql`insert into attempts (attempt_id, lead_id, campaign_id, company_id, attempt, state, started_at, phone_number, worker, success)
      select 'at_unseen_' || g.i, 'ld_unseen_' || g.i, ${fresh}, ${company_id}, 1, 'closed', g.i, '+14155550000', 'w', 0
      from ${series(kind, 20000)}`.execute(db.kysely);
    await sql`insert into attempts (attempt_id, lead_id, campaign_id, company_id, attempt, state, started_at, phone_number, worker, success, deadline_at)
      values ('at_unseen_open', 'ld_unseen_open', ${fresh}, ${company_id}, 1, 'open', ${now}, '+14155550000', 'w', 0, ${now + 60_000})`.execute(
      db.kysely,
    );
    const statement = inFlightStatement(db, fresh, now).compile(db.kysely);
    const text = await planOf(db.kysely, kind, statement);
    expect(text).toMatch(/attempts_pending/);
    expect(text).not.toMatch(/attempts_campaign_started|Seq Scan on attempts/);
    expect(await db.queue.inFlight(fresh, now)).toBe(1);
    await sql`delete from attempts where attempt_id like 'at_unseen_%'`.execute(db.kysely);
  });

  // SQLite has no bitmap scans
  if (kind === 'postgres')
    it("reads the attempts not closed by a plain index scan in a claim's transaction, which steps over the calls closed since (bench row 7)", async () => {
      // The statistics were taken while 5,000 calls of the campaign were open; all have closed since,
      // each leaving a dead entry in attempts_pending until VACUUM. A bitmap scan reads them all, every time.
      const fresh = await makeCampaign(db);
      const { company_id } = (await db.campaigns.byId(fresh))!;
      const now = Date.now();
      await sql`insert into attempts (attempt_id, lead_id, campaign_id, company_id, attempt, state, started_at, phone_number, worker, success, deadline_at)
        select 'at_dead_' || g.i, 'ld_dead_' || g.i, ${fresh}, ${company_id}, 1, 'open', g.i, '+14155550000', 'w', 0, ${now + 60_000}
        from ${series(kind, 5000)}`.execute(db.kysely);
      await sql`analyze attempts`.execute(db.kysely);
      await sql`update attempts set state = 'closed' where attempt_id like 'at_dead_%'`.execute(db.kysely);
      const raw = createDb(store.config);
      try {
        const statement = inFlightStatement(raw, fresh, now).compile(raw.kysely);
        const explain = (ex: Executor) =>
          ex
            .executeQuery<{ 'QUERY PLAN': string }>({ ...statement, sql: `explain (costs off) ${statement.sql}` })
            .then((r) => r.rows.map((x) => x['QUERY PLAN']).join('\n'));
        // the case: outside a claim, this plan is a bitmap scan
        expect(await explain(raw.kysely)).toMatch(/Bitmap Index Scan on attempts_pending/);
        const inClaim = await raw.writeTx(explain, claimTxOptions(fresh));
        expect(inClaim).toMatch(/Index Scan using attempts_pending/);
        expect(inClaim).not.toMatch(/Bitmap/);
        // the setting is the transaction's alone
        expect(await explain(raw.kysely)).toMatch(/Bitmap/);
        expect(await db.queue.inFlight(fresh, now)).toBe(0);
      } finally {
        await raw.close();
        await sql`delete from attempts where attempt_id like 'at_dead_%'`.execute(db.kysely);
      }
    });
});
