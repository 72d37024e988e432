/**
 * `npm run bench -- --scale=10m`: how cost grows, on PostgreSQL (opt-in; it
 * seeds 10 million leads, about 7 GB with indexes, and took 386 s on 2 quiet
 * cores on 2026-11-28). A smaller total such as `--scale=200k` runs the same steps.
 *
 * One database holds 1,000 companies with 10 campaigns each. One of them, the
 * measured campaign, has 100,000 due leads (a tenth of the total at smaller
 * scales); every other lead is scheduled a year ahead, spread over the 10,000
 * campaigns in turn, as many tenants writing at once would leave them. The
 * same figures are taken twice: with a tenth of the total seeded, then with
 * all of it:
 *   - a claim of 50 leads from the measured campaign (in-process, the
 *     dialer's own statement, released again after each);
 *   - a 1000-lead bulk create into it, and its first and last page of 1000,
 *     over HTTP against `leadline serve`;
 * and once, at the full size, with one `leadline dialer` serving every campaign:
 *   - its CPU and the database's transactions per second while nothing is due;
 *   - the time from a lead falling due in a random campaign to the call
 *     reaching the provider (a webhook receiver on 127.0.0.1);
 *   - the leads table's size on disk per lead (with its indexes), and the
 *     peak RSS of the server and the dialer.
 */
import { sql } from 'kysely';
import { createKey } from '../dist/auth/service.js';
import { createCampaign, createCompany } from '../dist/campaigns/service.js';
import { parseDatabaseUrl } from '../dist/config.js';
import { claimDueFree } from '../dist/dialer/claim.js';
import { LeadService } from '../dist/leads/service.js';
import { openStore } from '../dist/store/index.js';
import { median, percentile, sequential } from './lib/load.js';
import { startLeadline } from './lib/procs.js';
import { fmtMs } from './lib/stats.js';
import { createStore, lastPageCursor } from './lib/stores.js';
import { idleDialer, receiver } from './rows/speed.js';

const COMPANIES = 1000;
const CAMPAIGNS_PER_COMPANY = 10;
const CAMPAIGNS = COMPANIES * CAMPAIGNS_PER_COMPANY;
const YEAR = 365 * 24 * 3600 * 1000;
/** an idle dialer's first pass asks every campaign once: its start, not its idle cost */
const WARM_SECONDS = Number(process.env.BENCH_SCALE_WARM ?? 90);

function parseScale(raw) {
  const m = /^(\d+)([km]?)$/i.exec(raw ?? '');
  if (!m) throw new Error(`--scale takes a lead count such as 10m or 200k, got "${raw}"`);
  return Number(m[1]) * { '': 1, k: 1e3, m: 1e6 }[m[2].toLowerCase()];
}

/** companies and campaigns copied set-based from one made by leadline's own services */
async function tenants(db, template) {
  const k = db.kysely;
  const cols = async (table) =>
    (
      await sql`select column_name as c from information_schema.columns where table_name = ${table} order by ordinal_position`.execute(k)
    ).rows.map((r) => r.c);
  const companyCols = (await cols('companies')).filter((c) => !['id', 'name'].includes(c));
  const campaignCols = (await cols('campaigns')).filter((c) => !['id', 'name', 'company_id'].includes(c));
  const list = (c) => sql.raw(c.map((x) => `"${x}"`).join(', '));
  await sql`insert into companies (id, name, ${list(companyCols)})
    select 'co_s' || lpad(j::text, 4, '0'), 'Tenant ' || j, ${list(companyCols)}
    from companies, generate_series(0, ${COMPANIES - 1}::int) j where id = ${template.companyId}`.execute(k);
  await sql`insert into campaigns (id, name, company_id, ${list(campaignCols)})
    select 'cp_s' || lpad(j::text, 5, '0'), 'Campaign ' || j, 'co_s' || lpad((j / ${CAMPAIGNS_PER_COMPANY}::int)::text, 4, '0'), ${list(campaignCols)}
    from campaigns, generate_series(0, ${CAMPAIGNS - 1}::int) j where id = ${template.campaignId}`.execute(k);
}

/** leads first..last: in the measured campaign and due, or spread over the others and a year ahead */
async function seed(db, { first, last, measured, due }) {
  const k = db.kysely;
  const now = Date.now();
  // next_attempt_at is ISO 8601 text, compared as text: a number there sorts before every date, as if long due
  const { rows: indexes } = await sql`
    select indexname, indexdef from pg_indexes
    where tablename = 'leads' and indexname not in (select conname from pg_constraint)`.execute(k);
  await db.writeTx(async (tx) => {
    for (const ix of indexes) await sql.raw(`drop index ${ix.indexname}`).execute(tx);
    await sql`
      insert into leads (id, campaign_id, phone_number, external_id, metadata, status, priority, attempts, created_at, next_attempt_at)
      select 'ld_s' || lpad(i::text, 9, '0'),
             case when ${due}::bool then ${measured} else 'cp_s' || lpad((i % ${CAMPAIGNS}::int)::text, 5, '0') end,
             '+1' || (3000000000 + i), 'seed-' || i,
             '{"name":"Lead ' || i || '","company":"Acme","source":"seed"}', 'raw', i % 101, 0, ${now}::bigint + i,
             case when ${due}::bool then null else ${new Date(now + YEAR).toISOString()} end
      from generate_series(${first}::int, ${last}::int) as i`.execute(tx);
    for (const ix of indexes) await sql.raw(ix.indexdef).execute(tx);
  });
  // What autovacuum does to a table after inserts (PostgreSQL 13 and later): the
  // visibility map set and the hint bits written, as a database in service has
  // them. Straight after a bulk seed, reads would also write hint bits and
  // could not use index-only scans: the cost of the seed, not of the size.
  await sql`vacuum (analyze) leads`.execute(k);
  // And written out: the seed leaves gigabytes of dirty pages (shared buffers,
  // the kernel's cache) that the checkpointer and the kernel would otherwise
  // flush while the figures are taken, a cost of the seed, not of the size.
  // CHECKPOINT needs a superuser or pg_checkpoint (PostgreSQL 15); without, the run says so and goes on
  await sql`checkpoint`.execute(k).catch((err) => console.error(`scale: no checkpoint after the seed (${err.message})`));
}

/**
 * Untimed claims and bulk creates before the timed ones of each size: the
 * first were otherwise the first this process (or the server, started for
 * the size) ever ran, on a cache the seed had just emptied, and three runs of
 * the 10M scale gave the bulk create 47-70 ms at 1M against 70-77 ms at 10M.
 */
const WARM = 5;

/** claim latency: claims of 50 from the measured campaign, each released again; the first WARM untimed */
async function claims(db, campaignId, n) {
  const ms = [];
  for (let i = 0; i < WARM + n; i++) {
    const t0 = performance.now();
    const { leads } = await claimDueFree(db, {
      campaignId,
      maxAttempts: 3,
      workerId: 'bench-scale',
      limit: 50,
      concurrency: 50,
      now: Date.now(),
      leaseMs: 60_000,
    });
    if (i >= WARM) ms.push(performance.now() - t0);
    if (leads.length !== 50) throw new Error(`a claim took ${leads.length} leads, not 50`);
    for (const lead of leads) await db.queue.release(lead, { now: Date.now() });
  }
  return ms;
}

async function figures({ db, url, log, measured, key, logFile, round }) {
  const H = { 'x-api-key': key, 'content-type': 'application/json' };
  const claimMs = await claims(db, measured, 30);
  const server = await startLeadline({ DATABASE_URL: url }, logFile);
  try {
    let next = 0;
    const bulk = await sequential(
      server.url,
      () => ({
        method: 'POST',
        path: '/api/v1/leads/bulk',
        headers: H,
        body: JSON.stringify({
          campaignId: measured,
          leads: Array.from({ length: 1000 }, () => {
            const i = next++;
            return { phoneNumber: `+1420${round}${String(i).padStart(6, '0')}`, externalId: `bulk-${round}-${i}` };
          }),
        }),
      }),
      WARM + 10,
    );
    const first = `/api/v1/leads?campaignId=${measured}&limit=1000`;
    const last = `${first}&cursor=${(await lastPageCursor({ db }, measured, 1000)).cursor}`;
    const pages = await sequential(server.url, (i) => ({ path: i % 2 ? last : first, headers: H }), 40);
    log(`scale: ${round} figures taken`);
    return {
      claim: median(claimMs),
      bulk: median(bulk.ms.slice(WARM)),
      first: median(pages.ms.filter((_, i) => i % 2 === 0)),
      last: median(pages.ms.filter((_, i) => i % 2 === 1)),
      rss: server.peakRssMb(),
    };
  } finally {
    await server.stop();
  }
}

/**
 * due → call: leads created through leadline's own service (so their event
 * wakes the dialer, as an API create does) in random campaigns, each
 * scheduled to fall due 200 ms after the one before; a webhook receiver times
 * each call against its due time.
 */
async function dueToCall(db, rx, n) {
  const leads = new LeadService(db);
  const pending = [];
  const base = Date.now() + 5000;
  for (let i = 0; i < n; i++) {
    const j = Math.floor(Math.random() * CAMPAIGNS);
    const campaignId = `cp_s${String(j).padStart(5, '0')}`;
    const companyId = `co_s${String(Math.floor(j / CAMPAIGNS_PER_COMPANY)).padStart(4, '0')}`;
    const dueAt = base + i * 200;
    const id = await leads.create(
      { companyId, campaignId: null },
      { campaignId, phoneNumber: `+1202556${String(i).padStart(4, '0')}`, scheduledFor: new Date(dueAt).toISOString() },
    );
    pending.push({ id, dueAt });
  }
  const deadline = base + n * 200 + 10_000;
  while (pending.some((p) => !rx.arrived.has(p.id)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  // arrival times are performance.now(), due times wall-clock
  const offset = Date.now() - performance.now();
  const arrived = pending.filter((p) => rx.arrived.has(p.id));
  return { late: arrived.map((p) => rx.arrived.get(p.id) + offset - p.dueAt), lost: pending.length - arrived.length };
}

export async function scaleRun({ raw, tmp, log }) {
  const total = parseScale(raw);
  const tenth = Math.round(total / 10);
  const measuredSize = Math.min(100_000, tenth);
  const store = await createStore('postgres', tmp);
  const db = openStore(parseDatabaseUrl(store.url), { pgPoolSize: 2, pgStatementTimeoutMs: 3_600_000 });
  try {
    const { companyId } = await createCompany(db, 'Scale template');
    const open = { hours: 'mon-sun 00:00-24:00', local_window: '00:00-24:00', regional_rules: 'off' };
    const template = await createCampaign(db, { companyId, name: 'template', ...open });
    await tenants(db, { companyId, campaignId: template.campaignId });
    const { campaignId: measured } = await createCampaign(db, {
      companyId: store.companyId,
      name: 'measured',
      ...open,
      concurrency: 10_000,
    });
    const key = (await createKey(db, { companyId: store.companyId, name: 'scale', scope: 'write' })).key;
    let t = Date.now();
    await seed(db, { first: 1, last: measuredSize, measured, due: true });
    await seed(db, { first: measuredSize + 1, last: tenth, measured, due: false });
    log(`scale: seeded ${tenth.toLocaleString('en-US')} leads in ${((Date.now() - t) / 1000).toFixed(0)} s`);
    const small = await figures({ db, url: store.url, log, measured, key, logFile: `${tmp}/scale-small.log`, round: 1 });
    t = Date.now();
    await seed(db, { first: tenth + 1, last: total, measured, due: false });
    log(`scale: seeded ${total.toLocaleString('en-US')} leads in all, the rest in ${((Date.now() - t) / 1000).toFixed(0)} s`);
    const big = await figures({ db, url: store.url, log, measured, key, logFile: `${tmp}/scale-big.log`, round: 2 });

    const rx = await receiver();
    await sql`update campaigns set provider = 'webhook', provider_url = ${rx.url} where id like 'cp_s%'`.execute(db.kysely);
    // its due leads would keep the dialer busy: the figures below are about the others
    await sql`update campaigns set paused_at = ${Date.now()}, paused_reason = 'bench' where id = ${measured}`.execute(db.kysely);
    const dialer = await idleDialer(store.url, `${tmp}/scale-dialer.log`, log, db, 'postgres', { warmSeconds: WARM_SECONDS, seconds: 65 });
    let due;
    let dialerRss;
    try {
      due = await dueToCall(db, rx, 50);
      // read while it runs: a stopped process has no /proc entry to read
      dialerRss = dialer.rss();
    } finally {
      await dialer.stop();
      await rx.close();
    }
    const size = (await sql`select pg_total_relation_size('leads') as b, (select count(*) from leads) as n`.execute(db.kysely)).rows[0];
    return { total, tenth, small, big, idle: dialer.figures, due, bytesPerLead: Number(size.b) / Number(size.n), dialerRss };
  } finally {
    await db.close();
    await store.db.close().catch(() => {});
    await store.drop();
  }
}

export function scaleTable(r) {
  const n = (x) => x.toLocaleString('en-US');
  const ratio = (a, b) => `${(b / a).toFixed(2)}×`;
  const line = (name, a, b) => `| ${name} | ${fmtMs(a)} | ${fmtMs(b)} | ${ratio(a, b)} | ≤ 1.2× | ${b / a <= 1.2 ? 'yes' : '**no**'} |`;
  const p99 = percentile(r.due.late, 99);
  return [
    `| figure | ${n(r.tenth)} leads | ${n(r.total)} leads | growth | target | met |`,
    '|---|---|---|---|---|---|',
    line('claim of 50 (in-process)', r.small.claim, r.big.claim),
    line('bulk create 1000 (HTTP)', r.small.bulk, r.big.bulk),
    line('first page of 1000', r.small.first, r.big.first),
    line('last page of 1000', r.small.last, r.big.last),
    '',
    `| at ${n(r.total)} leads, ${n(CAMPAIGNS)} campaigns | figure | target | met |`,
    '|---|---|---|---|',
    `| idle dialer CPU | ${r.idle.share.toFixed(1)}% of a core, ${r.idle.tps} transactions/s | < 5% of a core | ${r.idle.share < 5 ? 'yes' : '**no**'} |`,
    `| lead due → call, p50 / p99 (${r.due.late.length} leads${r.due.lost ? `, ${r.due.lost} NOT CALLED` : ''}) | ${fmtMs(median(r.due.late))} / ${fmtMs(p99)} | p99 < 1 s | ${p99 < 1000 && !r.due.lost ? 'yes' : '**no**'} |`,
    `| leads table on disk, with indexes | ${Math.round(r.bytesPerLead)} bytes per lead | – | – |`,
    `| peak RSS: server / dialer | ${r.big.rss?.toFixed(0)} / ${r.dialerRss?.toFixed(0)} MB | – | – |`,
  ].join('\n');
}
