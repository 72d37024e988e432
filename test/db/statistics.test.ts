/**
 * PostgreSQL with `leads` never analyzed (src/db/statistics.ts): a list page
 * was served by sorting the whole campaign; once leadline has analyzed the
 * table, by the campaign index in order. And the checks stop once there are
 * statistics, wait while the table is empty, and report a failure once.
 */
import { sql } from 'kysely';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createCampaign, createCompany } from '../../src/campaigns/service.js';
import { analyzeLeadsIfNever, keepLeadStatistics } from '../../src/db/statistics.js';
import { openStore, type Store } from '../../src/store/index.js';
import { createTestStore, type TestStore } from '../helpers/db.js';
import { PG_ADMIN_URL, serviceAvailable } from '../helpers/services.js';

describe.runIf(await serviceAvailable('postgres'))('statistics of leads on PostgreSQL', () => {
  let test: TestStore;
  let store: Store;
  let campaignId: string;
  let other: string;

  beforeEach(async () => {
    test = await createTestStore('postgres');
    store = await test.open();
    const { companyId } = await createCompany(store, 'Stats Co');
    other = (await createCampaign(store, { companyId, name: 'other' })).campaignId;
    campaignId = (await createCampaign(store, { companyId, name: 'measured' })).campaignId;
  });
  afterEach(async () => {
    vi.restoreAllMocks();
    await store?.close();
    await test?.drop();
  });

  /** n leads of the campaign, set-based (no analyze, as a fresh database under load has none) */
  const fill = (campaign: string, n: number, from: number) =>
    sql`insert into leads (id, campaign_id, phone_number, external_id, metadata, scheduled_for, priority, status, attempts, created_at)
        select 'ld_' || (${from}::int + g), ${campaign}, '+1555' || lpad((${from}::int + g)::text, 7, '0'), 'ext' || g, '{}', null, 0, 'raw', 0, 0
        from generate_series(1, ${n}::int) g`.execute(store.kysely);

  const hasStatistics = async () =>
    (
      await sql<{
        known: boolean;
      }>`select exists (select 1 from pg_stats where tablename = 'leads' and attname = 'campaign_id') as known`.execute(store.kysely)
    ).rows[0]?.known;

  /** the plan of the list page statement leadline sends for a limit=1 page */
  async function pagePlan(): Promise<string> {
    let sent: { text: string; values: unknown[] } | undefined;
    const query = pg.Client.prototype.query;
    vi.spyOn(pg.Client.prototype, 'query').mockImplementation(function (this: pg.Client, ...args: unknown[]) {
      const [config, values] = args as [string | { text: string; values?: unknown[] }, unknown[] | undefined];
      const text = typeof config === 'string' ? config : config.text;
      if (sent === undefined && text.includes('planned with its values'))
        sent = { text, values: (typeof config === 'string' ? values : config.values) ?? [] };
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    } as never);
    await store.leads.listPage(campaignId, undefined, 0, 1);
    vi.restoreAllMocks();
    const client = new pg.Client({ connectionString: test.url });
    await client.connect();
    try {
      const { rows } = await client.query(`explain ${sent!.text}`, sent!.values);
      return rows.map((r: Record<string, string>) => r['QUERY PLAN']).join('\n');
    } finally {
      await client.end();
    }
  }

  it('a table never analyzed is analyzed once, and a page then reads the campaign index in order', async () => {
    await fill(other, 20_000, 0);
    await fill(campaignId, 5_000, 1_000_000);
    const before = await pagePlan();
    expect(before, 'the plan PostgreSQL makes without statistics').toMatch(/Sort/);
    expect(await analyzeLeadsIfNever(store.kysely)).toBe('analyzed');
    const after = await pagePlan();
    expect(after).toMatch(/Index Scan using leads_campaign_seq/);
    expect(after).not.toMatch(/Sort/);
    expect(await analyzeLeadsIfNever(store.kysely)).toBe('has statistics');
  });

  it('an empty table is left alone and looked at again until it has leads', async () => {
    expect(await analyzeLeadsIfNever(store.kysely)).toBe('empty');
    const errors: unknown[] = [];
    const stop = keepLeadStatistics(store.kysely, (err) => errors.push(err), 50);
    await new Promise((r) => setTimeout(r, 150));
    await fill(campaignId, 100, 0);
    // read, not analyzeLeadsIfNever (which would analyze itself): the keeper must have done it
    await expect.poll(hasStatistics, { timeout: 5000 }).toBe(true);
    await stop();
    expect(errors).toEqual([]);
  });

  it('a role that does not own the table: reported once, as ANALYZE only warns it', async () => {
    await fill(campaignId, 100, 0);
    const role = `leadline_not_owner_${process.pid}`;
    await sql.raw(`create role ${role} login`).execute(store.kysely);
    await sql.raw(`grant select on leads to ${role}`).execute(store.kysely);
    // on the server itself: under npm run test:pgbouncer the pooler knows no such role
    const u = new URL(process.env.TEST_PG_DIRECT_URL ?? PG_ADMIN_URL);
    u.pathname = new URL(test.url).pathname;
    u.username = role;
    u.search = '';
    const guest = openStore({ kind: 'postgres', url: u.toString() });
    try {
      await expect(analyzeLeadsIfNever(guest.kysely)).rejects.toThrow(/owner of leads/);
      const errors: unknown[] = [];
      const stop = keepLeadStatistics(guest.kysely, (err) => errors.push(err), 20);
      await new Promise((r) => setTimeout(r, 200));
      await stop();
      expect(errors).toHaveLength(1);
    } finally {
      await guest.close();
      await sql.raw(`drop owned by ${role}`).execute(store.kysely);
      await sql.raw(`drop role ${role}`).execute(store.kysely);
    }
  });
});
