/**
 * The duplicate lookup of bulk create and bulk delete probes the unique
 * indexes once per identifier, even for a campaign the statistics do not know
 * yet (created or grown since the last ANALYZE), instead of reading every lead
 * of the campaign (src/store/postgres/leads.ts, matching()); so do the lookups by
 * one identifier (exists(), deleteOne()).
 */
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCampaign, createCompany } from '../../src/campaigns/service.js';
import type { Store } from '../../src/store/index.js';
import type { Database } from '../../src/db/schema.js';
import type { Db } from '../../src/db/index.js';
import { PostgresEventStore } from '../../src/store/events.js';
import { PostgresLeadStore } from '../../src/store/postgres/leads.js';

/** the leads store over a capturing Kysely, inside the transaction plans() opens (so no Db of its own is needed) */
const leadsOn = (k: Kysely<Database>) => new PostgresLeadStore({ kysely: null } as unknown as Db, k, new PostgresEventStore(k));
import { createTestStore, type TestStore } from '../helpers/db.js';
import { serviceAvailable } from '../helpers/services.js';

const KNOWN = 20_000;
const FRESH = 5_000;

describe.skipIf(!(await serviceAvailable('postgres')))('plans for a campaign the statistics do not know, on PostgreSQL', () => {
  let store: TestStore;
  let db: Store;
  let fresh: string;

  /** n leads with externalIds x-<from..> and phone numbers, inserted by the database */
  const seed = (campaignId: string, from: number, n: number) =>
    sql`insert into leads (id, campaign_id, phone_number, external_id, metadata, status, priority, attempts, created_at)
      select 'ld_t' || g, ${campaignId}, '+1415' || lpad(g::text, 7, '0'), 'x-' || g, '{}', 'raw', 0, 0, 1
      from generate_series(${from}::int, ${from + n - 1}::int) g`.execute(db.kysely);

  beforeAll(async () => {
    store = await createTestStore('postgres');
    db = await store.open();
    const { companyId } = await createCompany(db, 'Plan Co');
    const campaign = async () => (await createCampaign(db, { companyId, name: 'c' })).campaignId;
    await seed(await campaign(), 1, KNOWN);
    // The statistics know the first campaign only; autovacuum must not refresh
    // them before the plans below are taken.
    await sql`analyze leads`.execute(db.kysely);
    await sql`alter table leads set (autovacuum_enabled = false)`.execute(db.kysely);
    fresh = await campaign();
    await seed(fresh, KNOWN + 1, FRESH);
  });
  afterAll(async () => {
    await db?.close();
    await store?.drop();
  });

  /** the statements fn sends, each EXPLAIN ANALYZEd inside a transaction rolled back */
  async function plans(fn: (k: Kysely<Database>) => Promise<unknown>): Promise<string[]> {
    const seen: { sql: string; parameters: readonly unknown[] }[] = [];
    const pool = new pg.Pool({ connectionString: store.url, max: 1 });
    const k = new Kysely<Database>({
      dialect: new PostgresDialect({ pool }),
      log: (e) => {
        seen.push({ sql: e.query.sql, parameters: e.query.parameters });
      },
    });
    try {
      await k.transaction().execute(async (tx) => {
        await fn(tx);
        throw new Error('rollback');
      });
    } catch (err) {
      if ((err as Error).message !== 'rollback') throw err;
    } finally {
      await k.destroy();
    }
    const client = new pg.Client({ connectionString: store.url });
    await client.connect();
    try {
      const out: string[] = [];
      for (const s of seen.filter((x) => !/^(begin|commit|rollback)/i.test(x.sql))) {
        await client.query('begin');
        const { rows } = await client.query(`explain (analyze, costs off, timing off, summary off) ${s.sql}`, s.parameters as unknown[]);
        await client.query('rollback');
        out.push(rows.map((r) => r['QUERY PLAN']).join('\n'));
      }
      return out;
    } finally {
      await client.end();
    }
  }

  const ids = (n: number) => Array.from({ length: n }, (_, i) => `x-${KNOWN + 1 + i * 5}`);
  const phones = (n: number) => Array.from({ length: n }, (_, i) => `+1415${String(KNOWN + 2 + i * 5).padStart(7, '0')}`);

  /** every lead read comes from a probe of a unique index on both of its columns */
  function expectProbes(plan: string, probes: number) {
    expect(plan).not.toMatch(/Rows Removed by Filter/);
    expect(plan).not.toMatch(/Seq Scan on leads/);
    const indexScans = plan.split('\n').filter((line) => /Index (Only )?Scan using leads_\w+ on leads/.test(line));
    for (const line of indexScans) expect(line).toMatch(/leads_campaign_(external_id|phone_number)|leads_pkey/);
    const conds = plan.match(/Index Cond: \(\(campaign_id = \$\d+\) AND \((external_id|phone_number) = j(_\d+)?\.v\)\)/g) ?? [];
    expect(conds.length).toBe(probes);
  }

  it('finds existing leads of an unanalyzed campaign by one index probe per identifier', async () => {
    const [plan] = await plans(async (k) => {
      const found = await leadsOn(k).findExisting(fresh, ids(500), phones(500));
      expect(found).toHaveLength(1000);
    });
    expectProbes(plan!, 2);
    expect(plan).toMatch(/loops=500/);
  });

  it('finds them by externalId alone the same way', async () => {
    const [plan] = await plans((k) => leadsOn(k).findExisting(fresh, ids(1000), []));
    expectProbes(plan!, 2);
  });

  it("a retry's lookup of one identifier probes its unique index alone, once per value", async () => {
    for (const [column, values] of [
      ['external_id', ids(400)],
      ['phone_number', phones(400)],
    ] as const) {
      const [plan] = await plans(async (k) => {
        const taken = await leadsOn(k).taken(fresh, column, [...values, 'absent']);
        expect([...taken].sort()).toEqual([...values].sort());
      });
      expectProbes(plan!, 1);
      expect(plan).toMatch(/loops=401/);
    }
  });

  it('deletes them by the same probes', async () => {
    const [plan] = await plans(async (k) => {
      const deleted = await leadsOn(k).deleteMany(fresh, ids(300), phones(300));
      expect(deleted).toHaveLength(600);
    });
    expectProbes(plan!, 2);
  });

  it('looks one identifier up, and deletes by one, through the unique index', async () => {
    for (const fn of [
      (k: Kysely<Database>) => leadsOn(k).exists(fresh, { externalId: `x-${KNOWN + 7}` }),
      (k: Kysely<Database>) => leadsOn(k).exists(fresh, { phoneNumber: `+1415${String(KNOWN + 8).padStart(7, '0')}` }),
      (k: Kysely<Database>) => leadsOn(k).deleteOne(fresh, { externalId: `x-${KNOWN + 9}` }),
    ]) {
      const [plan] = await plans(async (k) => expect(await fn(k)).toBe(true));
      expect(plan).not.toMatch(/Rows Removed by Filter/);
      expect(plan).toMatch(/Index (Only )?Scan using leads_campaign_(external_id|phone_number) on leads/);
      expect(plan).toMatch(/Index Cond: \(\(campaign_id = \$\d+\) AND \((external_id|phone_number) = /);
    }
  });
});
