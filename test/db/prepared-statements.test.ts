/**
 * Straight to PostgreSQL, leadline's statements are prepared statements, one
 * name per text (src/db/statement-names.ts); with `?pgbouncer=true`
 * none is, as a transaction-mode pooler would lose them between transactions.
 * A prepared statement a migration outdated fails once, and its connection is
 * replaced rather than failing every later statement. Always against the
 * server itself: under npm run test:pgbouncer the pooler URL is not used here.
 */
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { PLANNED_WITH_VALUES } from '../../src/db/planned.js';
import { StatementNames } from '../../src/db/statement-names.js';
import { openStore, type Store } from '../../src/store/index.js';
import { createTestStore, type TestStore } from '../helpers/db.js';
import { PG_ADMIN_URL, serviceAvailable } from '../helpers/services.js';
import { makeCampaign, seedMany, seedPlanCampaign } from '../dialer/support.js';

/** a parameter as SQL text, for EXECUTE: strings, numbers, booleans, null and flat arrays of them */
function literal(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  const text = Array.isArray(v)
    ? `{${v.map((e) => (e === null ? 'NULL' : `"${String(e).replace(/["\\]/g, '\\$&')}"`)).join(',')}}`
    : String(v);
  return `'${text.replace(/'/g, "''")}'`;
}

describe('StatementNames', () => {
  it('names a text the same each time, and stops naming new texts at its limit', () => {
    const names = new StatementNames(2);
    const a = names.nameOf('select 1');
    expect(a).toMatch(/^leadline_\d+$/);
    expect(names.nameOf('select 1')).toBe(a);
    const b = names.nameOf('select 2');
    expect(b).not.toBe(a);
    expect(names.nameOf('select 3')).toBeUndefined();
    expect(names.nameOf('select 2')).toBe(b);
  });

  it('never names a statement planned with its values', () => {
    const names = new StatementNames();
    expect(names.nameOf(`${PLANNED_WITH_VALUES} select 1`)).toBeUndefined();
    expect(names.nameOf(`${PLANNED_WITH_VALUES} select 1`)).toBeUndefined();
    expect(names.nameOf('select 1')).toMatch(/^leadline_\d+$/);
  });
});

const DIRECT = process.env.TEST_PG_DIRECT_URL ?? PG_ADMIN_URL;
describe.runIf(await serviceAvailable('postgres'))('prepared statements on PostgreSQL', () => {
  let test: TestStore;
  /** the test database on the server itself, with `query` added to the URL */
  const url = (query = '') => {
    const u = new URL(DIRECT);
    u.pathname = new URL(test.url).pathname;
    u.search = query;
    return u.toString();
  };
  const opened: Store[] = [];
  /** one connection, so that every statement and pg_prepared_statements share a session */
  const open = (query = '') => {
    const store = openStore({ kind: 'postgres', url: url(query) }, { pgPoolSize: 1 });
    opened.push(store);
    return store;
  };
  const prepared = async (db: Store) =>
    (await sql<{ name: string; statement: string }>`select name, statement from pg_prepared_statements`.execute(db.kysely)).rows;

  beforeAll(async () => {
    test = await createTestStore('postgres');
    const db = await test.open();
    await db.close();
  });
  afterAll(async () => {
    for (const db of opened) await db.close();
    await test?.drop();
  });

  it('a statement run twice is prepared once, under a leadline name', async () => {
    const db = open();
    const list = () => db.kysely.selectFrom('campaigns').select(['id', 'name']).where('name', '=', 'x').execute();
    await list();
    await list();
    const mine = (await prepared(db)).filter((p) => p.statement.includes('from "campaigns"'));
    expect(mine).toHaveLength(1);
    expect(mine[0]!.name).toMatch(/^leadline_\d+$/);
  });

  it('with ?pgbouncer=true nothing is prepared', async () => {
    const db = open('?pgbouncer=true');
    await db.kysely.selectFrom('campaigns').select(['id']).execute();
    expect(await prepared(db)).toEqual([]);
  });

  it('a statement a migration outdated fails once; the next runs on a new connection and sees the new column', async () => {
    const db = open();
    const all = () => db.kysely.selectFrom('companies').selectAll().execute();
    await all();
    const admin = new pg.Client({ connectionString: url() });
    await admin.connect();
    try {
      await admin.query('alter table companies add column added_later int');
      await expect(all()).rejects.toMatchObject({ code: '0A000' });
      await expect(sql`select 1`.execute(db.kysely)).resolves.toBeDefined();
      await db.kysely.insertInto('companies').values({ id: 'co_later', name: 'Later', created_at: Date.now() }).execute();
      expect((await all()).find((c) => c.id === 'co_later')).toHaveProperty('added_later', null);
    } finally {
      await admin.query('alter table companies drop column added_later');
      await admin.end();
    }
  });

  it('the claim and a list page go unnamed; the plan PostgreSQL keeps for a bulk lookup, once it has run often, reads indexes', async () => {
    // PostgreSQL plans a prepared statement with its values 5 times, then may keep a plan made
    // without them (plan_cache_mode auto). EXPLAIN EXECUTE after that shows the plan it would use.
    // The claim's plan made without its values joins 1,394 estimated leads back through a sequential
    // scan of leads, so it is planned with them each time (PLANNED_WITH_VALUES), as the pages are.
    const db = open();
    const campaignId = await seedPlanCampaign(db);

    const sent = new Map<string, { text: string; values: unknown[] }>();
    const query = pg.Client.prototype.query;
    const spy = vi.spyOn(pg.Client.prototype, 'query').mockImplementation(function (this: pg.Client, ...args: unknown[]) {
      const config = args[0] as { name?: string; text?: string; values?: unknown[] };
      if (typeof config === 'object' && config.name) sent.set(config.name, { text: config.text!, values: config.values ?? [] });
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof query);
    const phones = Array.from({ length: 1000 }, (_, i) => `+1415${String(i * 7).padStart(7, '0')}`);
    try {
      for (let i = 0; i < 8; i++) {
        const now = Date.now();
        const claimed = await db.queue.claim({
          campaignId,
          maxAttempts: 3,
          workerId: 'w',
          limit: 10,
          now,
          leaseMs: 60_000,
          openZones: null,
        });
        expect(claimed).toHaveLength(10);
        await db.leads.listPage(campaignId, undefined, i * 1000, 1000);
        await db.leads.taken(campaignId, 'phone_number', phones);
      }
    } finally {
      spy.mockRestore();
    }
    const plans = new Map<string, string>();
    for (const [name, { text, values }] of sent) {
      const kind = /for update skip locked/.test(text) ? 'claim' : /unnest/.test(text) ? 'lookup' : /"_id"/.test(text) ? 'page' : null;
      if (kind === null) continue;
      const { rows } = await sql<{
        'QUERY PLAN': string;
      }>`explain execute ${sql.raw(`${name}(${values.map(literal).join(', ')})`)}`.execute(db.kysely);
      plans.set(kind, rows.map((r) => r['QUERY PLAN']).join('\n'));
    }
    expect([...plans.keys()]).toEqual(['lookup']);
    const plan = plans.get('lookup')!;
    expect(plan).not.toMatch(/Seq Scan on leads/);
    expect(plan).not.toMatch(/Sort/);
    expect([...sent.values()].filter((q) => q.text.startsWith(PLANNED_WITH_VALUES))).toEqual([]);
  });
});

describe.runIf(await serviceAvailable('postgres'))('a list page among analyzed campaigns', () => {
  let test: TestStore;
  let db: Store;
  beforeAll(async () => {
    test = await createTestStore('postgres');
    const u = new URL(DIRECT);
    u.pathname = new URL(test.url).pathname;
    db = openStore({ kind: 'postgres', url: u.toString() }, { pgPoolSize: 1 });
    await db.migrate();
  });
  afterAll(async () => {
    await db?.close();
    await test?.drop();
  });

  it('is never run on a plan made without its values (it was an Incremental Sort of the whole campaign)', async () => {
    // Nine campaigns of 3000 leads, analyzed: a named page statement of the campaign whose id sorts
    // first switched to its generic plan after its fifth run (bench row 3's ~70 ms pages).
    const campaigns: string[] = [];
    for (let i = 0; i < 9; i++) {
      const id = await makeCampaign(db);
      await seedMany(db, id, 3000);
      campaigns.push(id);
    }
    await sql`analyze leads`.execute(db.kysely);
    const first = [...campaigns].sort()[0]!;
    for (let i = 0; i < 8; i++) expect((await db.leads.listPage(first, undefined, 0, 1000)).n).toBe(1000);
    const pages = (
      await sql<{ generic_plans: string }>`
        select generic_plans from pg_prepared_statements where strpos(statement, ${'{"_id":'}) > 0`.execute(db.kysely)
    ).rows;
    expect(pages.reduce((n, p) => n + Number(p.generic_plans), 0)).toBe(0);
  });
});
