/**
 * A fresh database per store for one run: a temporary SQLite file, or a new
 * PostgreSQL database created on the server and dropped at the end. The schema,
 * company, campaigns and keys come from leadline's own code (dist/); the
 * million-lead campaigns are seeded with one set-based statement.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { createKey } from '../../dist/auth/service.js';
import { createCampaign, createCompany } from '../../dist/campaigns/service.js';
import { openStore } from '../../dist/store/index.js';
import { parseDatabaseUrl } from '../../dist/config.js';

const PG_ADMIN_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const ALWAYS_OPEN = { hours: 'mon-sun 00:00-24:00', local_window: '00:00-24:00', regional_rules: 'off' };

/** one statement on its own connection: to the server's admin database, or to `url` */
async function admin(text, url = PG_ADMIN_URL) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

export async function pgAvailable() {
  try {
    await admin('select 1');
    return true;
  } catch {
    return false;
  }
}

/** @param {'sqlite'|'postgres'} kind */
export async function createStore(kind, tmp) {
  let url;
  let drop;
  if (kind === 'sqlite') {
    const dir = mkdtempSync(join(tmp ?? tmpdir(), 'leadline-bench-'));
    url = `sqlite:${join(dir, 'bench.db')}`;
    drop = async () => rmSync(dir, { recursive: true, force: true });
  } else {
    const name = `leadline_bench_${process.pid}_${Date.now().toString(36)}`;
    await admin(`create database ${name}`);
    const u = new URL(PG_ADMIN_URL);
    u.pathname = `/${name}`;
    url = u.toString();
    drop = () => admin(`drop database if exists ${name} with (force)`);
  }
  // no statement timeout for the seeding statement (a million rows take longer than the default 5 s)
  const db = openStore(parseDatabaseUrl(url), { pgPoolSize: 2, pgStatementTimeoutMs: 600_000 });
  await db.migrate();
  const { companyId } = await createCompany(db, 'Bench company');
  const campaign = async (name) => (await createCampaign(db, { companyId, name, ...ALWAYS_OPEN })).campaignId;
  // Row 6 spreads its load over 100 keys of the one bench company, as many tenants' calls would be:
  // above MAX_KEYS_PER_COMPANY's default (50), a safeguard against one company's key sprawl
  const key = async (name) => (await createKey(db, { companyId, name, scope: 'write' }, Date.now(), 1000)).key;
  return { kind, url, db, companyId, campaign, key, drop };
}

/**
 * The diag tools' setup (bench/diag/side-by-side.js, instructions.js,
 * profile.js): a fresh store of `kind` with one campaign and a write key, its
 * connection closed so that only the servers use it. `tmp` holds the servers'
 * logs; `store.drop()` removes the database.
 */
export async function diagStore(kind, name) {
  const tmp = mkdtempSync(join(tmpdir(), `leadline-${name}-`));
  const store = await createStore(kind, tmp);
  try {
    const campaign = await store.campaign(name);
    const headers = { 'x-api-key': await store.key(name) };
    await store.db.close();
    return { tmp, store, campaign, headers };
  } catch (err) {
    await store.drop();
    throw err;
  }
}

/**
 * n leads per campaign, one statement each, campaign after campaign: ids,
 * phone numbers and externalIds unique and in creation order, metadata of a
 * realistic size. The indexes that back no constraint are dropped first and
 * rebuilt afterwards from their own definitions (building an index by sorting
 * is several times faster than a million in-place inserts), so the schema
 * ends exactly as leadline made it.
 */
export async function seedLeads(store, campaigns) {
  const now = Date.now();
  const { sql } = await import('kysely');
  const k = store.db.kysely;
  const meta = `'{"name":"Lead ' || i || '","company":"Acme","source":"seed"}'`;
  const ranges = [];
  let first = 1;
  for (const { campaignId, n } of campaigns) {
    ranges.push({ campaignId, first, last: first + n - 1 });
    first += n;
  }
  if (store.kind === 'postgres') {
    const { rows: indexes } = await sql`
      select indexname, indexdef from pg_indexes
      where tablename = 'leads' and indexname not in (select conname from pg_constraint)`.execute(k);
    await store.db.writeTx(async (tx) => {
      for (const ix of indexes) await sql.raw(`drop index ${ix.indexname}`).execute(tx);
      for (const r of ranges) {
        await sql`
          insert into leads (id, campaign_id, phone_number, external_id, metadata, status, priority, attempts, created_at)
          select 'ld_s' || lpad(i::text, 8, '0'), ${r.campaignId}, '+1' || (3000000000 + i), 'seed-' || i,
                 ${sql.raw(meta)}, 'raw', i % 101, 0, ${now}::bigint + i
          from generate_series(${r.first}::int, ${r.last}::int) as i`.execute(tx);
      }
      for (const ix of indexes) await sql.raw(ix.indexdef).execute(tx);
    });
    await sql`analyze leads`.execute(k);
  } else {
    const { rows: indexes } = await sql`
      select name, sql from sqlite_master where type = 'index' and tbl_name = 'leads' and sql is not null`.execute(k);
    await store.db.writeTx(async (tx) => {
      for (const ix of indexes) await sql.raw(`drop index "${ix.name}"`).execute(tx);
      for (const r of ranges) {
        await sql`
          with recursive s(i) as (select ${r.first} union all select i + 1 from s where i < ${r.last})
          insert into leads (id, campaign_id, phone_number, external_id, metadata, status, priority, attempts, created_at)
          select 'ld_s' || printf('%08d', i), ${r.campaignId}, '+1' || (3000000000 + i), 'seed-' || i,
                 ${sql.raw(meta)}, 'raw', i % 101, 0, ${now} + i
          from s`.execute(tx);
      }
      for (const ix of indexes) await sql.raw(ix.sql).execute(tx);
    });
    await sql`analyze`.execute(k);
  }
}

/**
 * ANALYZE of leads on PostgreSQL, as autovacuum does within a minute of the
 * inserts a row has just made (it may be off, as it is on the machines the
 * runs in BENCHMARKS.md used). Until then PostgreSQL plans on default
 * estimates, and for a table it has never analyzed (a run of rows 1-3 alone)
 * it read leadline's page by sorting the whole campaign: 112-116 ms against
 * the floor's 37-39 ms, whose sessions have enable_sort off. That measured the
 * first minute of a new table, not leadline; with the ANALYZE, 40.3 against
 * 40.2 ms.
 */
export async function analyzeLeads(store) {
  if (store.kind === 'postgres') await admin('analyze leads', store.url);
}

/** the cursor a client walking the campaign holds just before its last page, and the position it holds */
export async function lastPageCursor(store, campaignId, pageSize) {
  const { sql } = await import('kysely');
  const { ListCursors } = await import('../../dist/leads/cursor.js');
  const { rows } = await sql`
    select seq from leads where campaign_id = ${campaignId} order by seq desc limit 1 offset ${pageSize}`.execute(store.db.kysely);
  const seq = Number(rows[0].seq);
  const cursors = new ListCursors(await store.db.databaseKey());
  return { cursor: cursors.encode(campaignId, seq), seq };
}
