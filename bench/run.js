#!/usr/bin/env node
/**
 * `npm run bench`: leadline against its physical floor, over HTTP on 127.0.0.1.
 *
 * For each store (SQLite, PostgreSQL) it starts `leadline serve` from dist/ on a
 * fresh database, and the floor (bench/floor/server.js: bare node:http doing
 * only the unavoidable work) on the same database, drives both with the same
 * autocannon client, interleaving them so that drift on a shared machine lands
 * on both, and prints one table. Ratios are the figures to compare; absolute
 * times drift from machine to machine and minute to minute.
 *
 *   --quick          tiny sizes, asserts nothing about speed (the CI smoke run)
 *   --stores=a,b     sqlite and/or postgres (default: both; postgres when reachable)
 *   --rows=1,3       only these rows (8, the peak RSS, is always reported; 10 and 11 run together)
 *   --no-write       do not rewrite BENCHMARKS.md (default with --quick)
 *   --write          rewrite BENCHMARKS.md even with --quick
 *   --no-peer        leave out the Directus peer even when it is installed
 *   --dialer-concurrency=N  calls in flight per dialer worker in row 7 (default 50)
 *   --cpu-prof       run the leadline servers under --cpu-prof (bench/profiles/)
 *   --keep           keep the temporary folder (server logs, SQLite files)
 *   --scale=10m      instead of the rows: how cost grows from 1M to 10M leads on PostgreSQL (bench/scale.js)
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { killAll, startFloor, startLeadline } from './lib/procs.js';
import { printTable, writeReport, writeScaleReport } from './lib/report.js';
import { createStore, lastPageCursor, pgAvailable, seedLeads } from './lib/stores.js';
import { bulkRows } from './rows/bulk.js';
import { dialerRow, pendingDialer } from './rows/dialer.js';
import { listRow, pagesRow } from './rows/list.js';
import { limiterRow, smallCallRows } from './rows/small.js';
import { speedRows } from './rows/speed.js';
import { eventsRow } from './rows/events.js';
import { dncRow } from './rows/dnc.js';
import { outboxRow } from './rows/outbox.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const argv = process.argv.slice(2);
const flag = (name) => argv.includes(`--${name}`);
const option = (name) => argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
const quick = flag('quick');
const write = flag('write') || (!quick && !flag('no-write'));
const onlyRows = option('rows')?.split(',');
const wants = (row) => !onlyRows || onlyRows.includes(String(row));

/**
 * bulk: leads per bulk request; rounds × perRound: timed requests per side in a
 * latency row; list: page size of row 3; big: the campaign of rows 4 and 7;
 * tpRounds × seconds: closed-loop time per side in rows 5 and 6; dncWarmClaims of
 * row 13's claims per side warm the caches, dncClaims are timed; dialerRounds
 * turns per side in row 7, each dialerWarmSeconds then dialerSeconds counted.
 */
const S = quick
  ? {
      bulk: 100,
      rounds: 2,
      perRound: 2,
      list: 800,
      big: 10_000,
      page: 1000,
      pageSamples: 10,
      tpRounds: 1,
      // The closed-loop runs are short: they only show that each row's code runs,
      // and the two stores' rows share 2 cores (CI wants the whole run under 30 s).
      // The dialers keep a second to start: with half a second, row 7 counted none.
      seconds: 0.15,
      warmSeconds: 0.05,
      dialerRounds: 1,
      dialerWarmSeconds: 0.5,
      dialerSeconds: 1,
      idleCampaigns: 50,
      idleWarmSeconds: 1,
      idleSeconds: 0.5,
      speedSamples: 5,
      speedGapMs: 50,
      events: 200,
      dncEntries: 10_000,
      dncClaims: 2,
      dncWarmClaims: 1,
      capsAttempts: 10_000,
    }
  : {
      bulk: 1000,
      rounds: 6,
      perRound: 10,
      list: 8000,
      big: 1_000_000,
      page: 1000,
      pageSamples: 100,
      tpRounds: 3,
      seconds: 1.5,
      warmSeconds: 1,
      dialerRounds: 2,
      dialerWarmSeconds: 2,
      dialerSeconds: 5,
      idleCampaigns: 1000,
      idleWarmSeconds: 30,
      idleSeconds: 30,
      speedSamples: 100,
      speedGapMs: 300,
      events: 5000,
      dncEntries: 1_000_000,
      dncClaims: 60,
      dncWarmClaims: 3,
      capsAttempts: 1_000_000,
    };
/** calls in flight per dialer worker in row 7 (the campaign's concurrency setting) */
const DIALER_CONCURRENCY = Number(option('dialer-concurrency') ?? 50);
/** row 6 spreads its load over this many keys, as the calls of many tenants are */
const TENANT_KEYS = 100;

const started = Date.now();
const log = (msg) => process.stderr.write(`[${((Date.now() - started) / 1000).toFixed(0).padStart(3)} s] ${msg}\n`);
const tmp = mkdtempSync(join(tmpdir(), 'leadline-bench-'));
const cleanups = [];
const serverOpts = flag('cpu-prof') ? { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${join(ROOT, 'bench', 'profiles')}`] } : {};
if (flag('cpu-prof')) mkdirSync(join(ROOT, 'bench', 'profiles'), { recursive: true });

/** every row of one store: a fresh database, leadline and the floor on it */
async function benchStore(kind) {
  log(`${kind}: fresh database`);
  const store = await createStore(kind, tmp);
  cleanups.push(store.drop);
  const campaigns = {
    leadline: await store.campaign('bench leadline'),
    floor: await store.campaign('bench floor'),
    million: await store.campaign('bench million'),
  };
  const key = await store.key('bench key');
  const tenantKeys = [];
  if (wants(6)) for (let i = 0; i < TENANT_KEYS; i++) tenantKeys.push(await store.key(`tenant ${i}`));
  let lastCursor;
  const dialer = wants(7) && kind === 'postgres';
  if (wants(4) || dialer) {
    const t = Date.now();
    // later leads of another campaign follow the million: its last page must not read them
    const later = await store.campaign('bench later');
    await seedLeads(store, [
      { campaignId: campaigns.million, n: S.big },
      { campaignId: later, n: S.big / 10 },
    ]);
    lastCursor = await lastPageCursor(store, campaigns.million, S.page);
    log(`${kind}: seeded ${(1.1 * S.big).toLocaleString('en-US')} leads in ${((Date.now() - t) / 1000).toFixed(1)} s`);
  }
  await store.db.close();

  const logFile = (name) => join(tmp, `${kind}-${name}.log`);
  // its deliverer posts row 12's events to a receiver on 127.0.0.1, which the outbound policy refuses by default
  const leadline = await startLeadline({ DATABASE_URL: store.url, OUTBOUND_ALLOW: '127.0.0.0/8' }, logFile('leadline'), serverOpts);
  const floor = await startFloor(store.url, logFile('floor'));
  const ctx = {
    kind,
    S,
    store,
    campaigns,
    leadline,
    floor,
    log,
    logFile,
    serverOpts,
    wants,
    H: { 'x-api-key': key },
    servers: [floor],
    rows: [],
    rss: [],
    plans: [],
    floors: {},
    base: (n, name) => ({ n, name, store: kind === 'sqlite' ? 'SQLite' : 'PostgreSQL' }),
  };
  try {
    const have = wants(1) || wants(2) ? await bulkRows(ctx) : 0;
    if (wants(3)) await listRow(ctx, have);
    if (wants(4)) await pagesRow(ctx, lastCursor);
    if (wants(5)) await smallCallRows(ctx);
    if (wants(6) && process.env.BENCH_REDIS_URL !== '') await limiterRow(ctx, tenantKeys);
    if (dialer) await dialerRow(ctx, DIALER_CONCURRENCY);
    if (wants(10) || wants(11)) await speedRows(ctx);
    if (wants(12)) await eventsRow(ctx);
    if (wants(13)) await dncRow(ctx);
    if (wants(14)) await outboxRow(ctx);
  } finally {
    ctx.rss.unshift({ store: kind, mode: 'memory limiter', mb: await leadline.stop() });
    for (const s of ctx.servers) await s.stop();
  }
  return ctx;
}

async function main() {
  if (option('scale')) {
    const { scaleRun, scaleTable } = await import('./scale.js');
    const table = scaleTable(await scaleRun({ raw: option('scale'), tmp, log }));
    process.stdout.write(`\n${table}\n`);
    if (!flag('no-write')) writeScaleReport(join(ROOT, 'BENCHMARKS.md'), table, (Date.now() - started) / 1000);
    return;
  }
  const stores = option('stores')?.split(',') ?? ['sqlite', 'postgres'];
  const results = [];
  const skipped = [];
  const kinds = [];
  for (const kind of stores) {
    if (kind === 'postgres' && !(await pgAvailable())) skipped.push('PostgreSQL not reachable: its rows were skipped');
    else kinds.push(kind);
  }
  // A quick run times nothing that is compared (it shows every row's code
  // still runs), so its stores run side by side; a full run takes them in
  // turn, so that neither's figures carry the other's load.
  if (quick) results.push(...(await Promise.all(kinds.map(benchStore))));
  else for (const kind of kinds) results.push(await benchStore(kind));
  const rows = results.flatMap((r) => r.rows);
  const rss = results.flatMap((r) => r.rss);
  const plans = results.flatMap((r) => r.plans);
  const peak = Math.max(...rss.map((r) => r.mb ?? 0));
  rows.push({
    n: 8,
    name: 'server peak RSS during the run',
    store: 'all',
    leadline: `${peak.toFixed(0)} MB`,
    ratio: '',
    target: '≤ 300 MB',
    met: peak <= 300,
    note: rss.map((r) => `${r.store}/${r.mode} ${r.mb?.toFixed(0)} MB`).join(', '),
  });
  if (wants(7) && !rows.some((r) => r.n === 7)) {
    rows.push(pendingDialer(stores.includes('postgres') ? 'PostgreSQL not reachable' : 'PostgreSQL not in --stores'));
  }
  const peer = await import('./peers/directus/peer.js');
  if (peer.installed() && !quick && !flag('no-peer')) {
    const floors = results.find((r) => r.kind === 'sqlite')?.floors ?? {};
    try {
      rows.push(...(await peer.runPeer({ log, tmp, sizes: S, floors })));
    } catch (err) {
      rows.push({ n: 9, name: 'peer: Directus over SQLite', store: 'SQLite', leadline: 'failed', met: null, note: String(err.message) });
    }
  } else {
    const why = quick ? 'skipped (--quick)' : flag('no-peer') ? 'skipped (--no-peer)' : 'not installed';
    rows.push({
      n: 9,
      name: 'peer: Directus over SQLite',
      store: 'SQLite',
      leadline: why,
      met: null,
      note: 'to include it: node bench/peers/directus/setup.js (see its README.md)',
    });
  }
  rows.sort((a, b) => a.n - b.n);
  const seconds = (Date.now() - started) / 1000;
  printTable(rows, { quick, seconds, notes: skipped, plans });
  if (write) writeReport(join(ROOT, 'BENCHMARKS.md'), rows, { seconds, notes: skipped, sizes: S, plans });
}

let exiting = false;
async function cleanup() {
  killAll();
  for (const fn of cleanups.reverse()) await fn().catch(() => {});
  if (!process.exitCode && !flag('keep')) rmSync(tmp, { recursive: true, force: true });
  else process.stderr.write(`server logs kept in ${tmp}\n`);
}
process.on('SIGINT', () => {
  if (exiting) return;
  exiting = true;
  process.exitCode = 130;
  cleanup().finally(() => process.exit(130));
});

try {
  await main();
} catch (err) {
  process.exitCode = 1;
  process.stderr.write(`bench failed: ${err.stack ?? err}\n`);
} finally {
  if (!exiting) await cleanup();
}
