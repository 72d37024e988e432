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
 *   --quick          tiny sizes, ~20 s, asserts nothing about speed (CI smoke)
 *   --stores=a,b     sqlite and/or postgres (default: both; postgres when reachable)
 *   --rows=1,3       only these rows (8, the peak RSS, is always reported)
 *   --no-write       do not rewrite BENCHMARKS.md (default with --quick)
 *   --write          rewrite BENCHMARKS.md even with --quick
 *   --no-peer        leave out the Directus peer even when it is installed
 *   --cpu-prof       run the leadline servers under --cpu-prof (bench/profiles/)
 *   --keep           keep the temporary folder (server logs, SQLite files)
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bulkBody, singleBody } from './lib/data.js';
import { expectStatus, interleaved, median, percentile, sequential, throughput } from './lib/load.js';
import { killAll, startFloor, startLeadline } from './lib/procs.js';
import { printTable, writeReport } from './lib/report.js';
import { fmtMs, fmtRatio, latencyRow, sum, throughputRow } from './lib/stats.js';
import { benchDialer, dialerApi, planUsesIndexOnly } from './lib/dialer.js';
import { capture, explain } from './lib/explain.js';
import { createStore, lastPageCursor, pgAvailable, seedLeads } from './lib/stores.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const argv = process.argv.slice(2);
const flag = (name) => argv.includes(`--${name}`);
const option = (name) => argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
const quick = flag('quick');
const write = flag('write') || (!quick && !flag('no-write'));
const onlyRows = option('rows')?.split(',');
const wants = (row) => !onlyRows || onlyRows.includes(String(row));

const S = quick
  ? { bulk: 100, rounds: 2, perRound: 2, list: 800, big: 10_000, page: 1000, pageSamples: 10, tpRounds: 1, seconds: 0.5, warmSeconds: 0.2, dialerSeconds: 1 }
  : { bulk: 1000, rounds: 6, perRound: 10, list: 8000, big: 1_000_000, page: 1000, pageSamples: 60, tpRounds: 3, seconds: 1.5, warmSeconds: 1, dialerSeconds: 10 };
const CONNECTIONS = 50;
/** calls in flight per dialer worker in row 7 (the campaign's concurrency setting) */
const DIALER_CONCURRENCY = Number(option('dialer-concurrency') ?? 50);
const pendingDialer = (why = 'pending the dialer') => ({
  n: 7, name: 'dialer: leads claimed + completed, 4 workers', store: 'PostgreSQL', leadline: why,
  target: '≥ 2000 leads/s, index plan, no seq scan', met: null,
});
/** row 6 spreads its load over this many keys, as the calls of many tenants are */
const TENANT_KEYS = 100;

const started = Date.now();
const log = (msg) => process.stderr.write(`[${((Date.now() - started) / 1000).toFixed(0).padStart(3)} s] ${msg}\n`);
const tmp = mkdtempSync(join(tmpdir(), 'leadline-bench-'));
const cleanups = [];
const serverOpts = flag('cpu-prof')
  ? { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${join(ROOT, 'bench', 'profiles')}`] }
  : {};
if (flag('cpu-prof')) mkdirSync(join(ROOT, 'bench', 'profiles'), { recursive: true });

async function fetchText(url, init) {
  const res = await fetch(url, init);
  return { status: res.status, text: await res.text() };
}

/** one request to each side, checked, before anything is timed */
async function check(label, cond, detail) {
  if (!cond) throw new Error(`${label}: ${detail}`);
}

async function benchStore(kind) {
  const rows = [];
  const rss = [];
  const plans = [];
  const floors = {};
  const base = (n, name) => ({ n, name, store: kind === 'sqlite' ? 'SQLite' : 'PostgreSQL' });
  log(`${kind}: fresh database`);
  const store = await createStore(kind, tmp);
  cleanups.push(store.drop);
  const A = await store.campaign('bench leadline');
  const B = await store.campaign('bench floor');
  const M = await store.campaign('bench million');
  const key = await store.key('bench key');
  const tenantKeys = [];
  if (wants(6)) for (let i = 0; i < TENANT_KEYS; i++) tenantKeys.push(await store.key(`tenant ${i}`));
  const H = { 'x-api-key': key };
  let lastCursor;
  if (wants(4) || (wants(7) && kind === 'postgres')) {
    const t = Date.now();
    // and later leads in another campaign: at the end of M, a page must not read them
    await seedLeads(store, [{ campaignId: M, n: S.big }, { campaignId: await store.campaign('bench later'), n: S.big / 10 }]);
    lastCursor = await lastPageCursor(store, M, S.page);
    log(`${kind}: seeded ${(1.1 * S.big).toLocaleString('en-US')} leads in ${((Date.now() - t) / 1000).toFixed(1)} s`);
  }
  await store.db.close();

  const logFile = (name) => join(tmp, `${kind}-${name}.log`);
  const leadline = await startLeadline({ DATABASE_URL: store.url }, logFile('leadline'), serverOpts);
  const floor = await startFloor(store.url, logFile('floor'));
  const servers = [leadline, floor];
  try {
    // ---- 1, 2: bulk create, new then all duplicates --------------------------------
    const sent = { [leadline.url]: [], [floor.url]: [] };
    const bulkNew = (url, campaign) => () => {
      const body = bulkBody(campaign, S.bulk);
      sent[url].push(body);
      return { method: 'POST', path: '/api/v1/leads/bulk', headers: H, body };
    };
    const resent = { [leadline.url]: 0, [floor.url]: 0 };
    const bulkAgain = (url) => () => ({
      method: 'POST',
      path: '/api/v1/leads/bulk',
      headers: H,
      body: sent[url][resent[url]++ % sent[url].length],
    });
    if (wants(1) || wants(2) || wants(3) || wants(5)) {
      for (const [srv, campaign] of [[leadline, A], [floor, B]]) {
        const body = bulkNew(srv.url, campaign)().body;
        const post = () =>
          fetchText(`${srv.url}/api/v1/leads/bulk`, { method: 'POST', headers: { ...H, 'content-type': 'application/json' }, body });
        const first = JSON.parse((await post()).text).data;
        const again = JSON.parse((await post()).text).data;
        await check(`${srv.name} bulk`, first.created === S.bulk && again.skipped === S.bulk && again.created === 0,
          `expected ${S.bulk} created then ${S.bulk} skipped, got ${JSON.stringify({ first: first.created, again: again.skipped })}`);
        await check(`${srv.name} bulk`, again.skippedIdentifiers[0] === JSON.parse(body).leads[0].externalId, 'skipped identifier');
        await sequential(srv.url, bulkNew(srv.url, campaign), 3); // warm-up
      }
    }
    if (wants(1)) {
      log(`${kind}: 1 bulk create ${S.bulk} new`);
      const [a, b] = await interleaved(
        S.rounds,
        () => sequential(leadline.url, bulkNew(leadline.url, A), S.perRound),
        () => sequential(floor.url, bulkNew(floor.url, B), S.perRound),
      );
      a.concat(b).forEach((s) => expectStatus('bulk create', s.statuses, 200));
      floors.bulk = b.flatMap((s) => s.ms);
      rows.push(latencyRow(base(1, `bulk create ${S.bulk} new leads`), a.flatMap((s) => s.ms), floors.bulk, 1.3));
    }
    if (wants(2)) {
      log(`${kind}: 2 bulk create ${S.bulk} duplicates`);
      const [a, b] = await interleaved(
        S.rounds,
        () => sequential(leadline.url, bulkAgain(leadline.url), S.perRound),
        () => sequential(floor.url, bulkAgain(floor.url), S.perRound),
      );
      a.concat(b).forEach((s) => expectStatus('bulk duplicates', s.statuses, 200));
      rows.push(latencyRow(base(2, `bulk create ${S.bulk} duplicates`), a.flatMap((s) => s.ms), b.flatMap((s) => s.ms), 1.3));
    }

    // ---- 3: list page of 8000 -----------------------------------------------------------
    if (wants(3)) {
      log(`${kind}: 3 list ${S.list}`);
      // campaign A holds ≥ S.list leads after the bulk rows; fill it if they did not run
      while (sent[leadline.url].length * S.bulk < S.list) {
        await sequential(leadline.url, bulkNew(leadline.url, A), 1);
      }
      const floorRows = await startFloor(store.url, logFile('floor-rows'), { FLOOR_LIST: 'rows' });
      servers.push(floorRows);
      const path = `/api/v1/leads?campaignId=${A}&limit=${S.list}`;
      const bodies = await Promise.all([leadline, floor, floorRows].map((s) => fetchText(s.url + path, { headers: H })));
      const count = JSON.parse(bodies[0].text).data.count;
      await check('list', count === S.list, `leadline returned ${count} leads`);
      await check('list', bodies[1].text === bodies[0].text, 'the floor (database-built JSON) returns other bytes than leadline');
      await check('list', bodies[2].text === bodies[0].text, 'the floor (rows + JS) returns other bytes than leadline');
      const get = () => ({ path, headers: H });
      for (const s of [leadline, floor, floorRows]) await sequential(s.url, get, 5);
      const results = { l: [], d: [], r: [] };
      for (let round = 0; round < S.rounds; round++) {
        const order = round % 2 ? [['r', floorRows], ['d', floor], ['l', leadline]] : [['l', leadline], ['d', floor], ['r', floorRows]];
        for (const [k, s] of order) results[k].push(await sequential(s.url, get, S.perRound));
      }
      Object.values(results).flat().forEach((s) => expectStatus('list', s.statuses, 200));
      const ms = (k) => results[k].flatMap((s) => s.ms);
      const dbFaster = median(ms('d')) <= median(ms('r'));
      floors.list = ms(dbFaster ? 'd' : 'r');
      const row = latencyRow(base(3, `list page of ${S.list}`), ms('l'), floors.list, 1.3);
      row.note = `floor: ${dbFaster ? 'database-built JSON' : 'rows + JS concatenation'} (the faster; database-built ${median(ms('d')).toFixed(1)} ms, rows + JS ${median(ms('r')).toFixed(1)} ms); same bytes as leadline`;
      rows.push(row);
      await floorRows.stop();
      servers.pop();
    }

    // ---- 4: last page vs first page of a million-lead campaign ---------------------------------
    if (wants(4)) {
      log(`${kind}: 4 first vs last page of ${S.big.toLocaleString('en-US')}`);
      const first = `/api/v1/leads?campaignId=${M}&limit=${S.page}`;
      const last = `${first}&cursor=${lastCursor}`;
      const lastBody = JSON.parse((await fetchText(leadline.url + last, { headers: H })).text).data;
      await check('last page', lastBody.count === S.page && lastBody.hasMore === false, `got ${lastBody.count} leads, hasMore ${lastBody.hasMore}`);
      // first and last alternate request by request on one connection
      const alt = (i) => ({ path: i % 2 ? last : first, headers: H });
      const split = (samples) => ({
        first: samples.flatMap((s) => s.ms.filter((_, i) => i % 2 === 0)),
        last: samples.flatMap((s) => s.ms.filter((_, i) => i % 2 === 1)),
      });
      await sequential(leadline.url, alt, 10);
      await sequential(floor.url, alt, 10);
      const perRound = Math.max(2, Math.round((2 * S.pageSamples) / S.rounds / 2) * 2);
      const [a, b] = await interleaved(S.rounds, () => sequential(leadline.url, alt, perRound), () => sequential(floor.url, alt, perRound));
      a.concat(b).forEach((s) => expectStatus('pages', s.statuses, 200));
      const l = split(a);
      const f = split(b);
      const ratio = median(l.last) / median(l.first);
      rows.push({
        ...base(4, `last / first page (${S.page}) of ${S.big.toLocaleString('en-US')} leads`),
        leadline: `${fmtMs(median(l.last))} / ${fmtMs(median(l.first))}`,
        p99: `${fmtMs(percentile(l.last, 99))} / ${fmtMs(percentile(l.first, 99))}`,
        floor: `${fmtMs(median(f.last))} / ${fmtMs(median(f.first))}`,
        floorP99: '',
        ratio: fmtRatio(ratio),
        ratioValue: ratio,
        target: '≤ 1.1 (last / first)',
        met: ratio <= 1.1,
        note: `floor last/first ${fmtRatio(median(f.last) / median(f.first))}`,
      });
      // the plans of leadline's own page statements for the last page
      const { decodeCursor } = await import('../dist/leads/cursor.js');
      const repo = await import('../dist/leads/repository.js');
      const after = decodeCursor(lastCursor);
      const statements = await capture(store, async (k) => {
        await repo.listPage(k, kind, M, undefined, after, S.page);
      });
      for (const st of statements) {
        plans.push({ title: `${base(4).store}: last page, ${st.sql.trim().split(/\s+/).slice(0, 4).join(' ')}…`, sql: st.sql, plan: await explain(store, st) });
      }
    }

    // ---- 5: small authenticated calls, 50 connections -------------------------------
    if (wants(5) || wants(6)) {
      const listOne = () => ({ path: `/api/v1/leads?campaignId=${A}&limit=1`, headers: H });
      const createOne = () => ({ method: 'POST', path: '/api/v1/leads', headers: H, body: singleBody(A) });
      const get = await fetchText(leadline.url + listOne().path, { headers: H });
      const post = await fetchText(leadline.url + '/api/v1/leads', {
        method: 'POST', headers: { ...H, 'content-type': 'application/json' }, body: createOne().body,
      });
      await check('small calls', get.status === 200 && post.status === 201, `list ${get.status}, create ${post.status}`);
      const warm = (srv, make) => throughput(srv.url, make, { connections: CONNECTIONS, seconds: S.warmSeconds });
      /** S.tpRounds interleaved closed-loop runs of each server; req/s and server CPU per request over all of them */
      const compare = async (label, want, [srvA, makeA], [srvB, makeB]) => {
        await warm(srvA, makeA);
        await warm(srvB, makeB);
        const tp = (srv, make) => () => throughput(srv.url, make, { connections: CONNECTIONS, seconds: S.seconds, server: srv });
        const [a, b] = await interleaved(S.tpRounds, tp(srvA, makeA), tp(srvB, makeB));
        a.concat(b).forEach((r) => expectStatus(label, r.statuses, want));
        const total = (runs) => ({
          rps: sum(runs.map((r) => r.answered)) / sum(runs.map((r) => r.seconds)),
          cpuUs: sum(runs.map((r) => r.cpuUs * r.answered)) / sum(runs.map((r) => r.answered)),
        });
        return [total(a), total(b)];
      };
      if (wants(5)) {
        const small = await startFloor(store.url, logFile('floor-small'), {
          FLOOR_SMALL: JSON.stringify({ GET: [Buffer.byteLength(get.text), 200], POST: [Buffer.byteLength(post.text), 201] }),
        });
        servers.push(small);
        for (const [label, make, status, bytes] of [
          ['list limit=1', listOne, 200, Buffer.byteLength(get.text)],
          ['single create', createOne, 201, Buffer.byteLength(post.text)],
        ]) {
          log(`${kind}: 5 ${label}, ${CONNECTIONS} connections`);
          const [l, f] = await compare(label, status, [leadline, make], [small, make]);
          const row = throughputRow(base(5, `${label} (${CONNECTIONS} conn.)`), l.rps, f.rps, 0.5);
          row.note = `floor: bare node:http answering ${bytes} bytes; server CPU per request: leadline ${l.cpuUs.toFixed(0)} µs, floor ${f.cpuUs.toFixed(0)} µs (ratio ${(f.cpuUs / l.cpuUs).toFixed(2)})`;
          rows.push(row);
        }
        await small.stop();
        servers.pop();
      }
      // ---- 6: the same load with the limiter in Redis ------------------------------------
      if (wants(6) && process.env.BENCH_REDIS_URL !== '') {
        const redisUrl = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
        const prefix = `leadline:bench:${process.pid}:`;
        let redisMode;
        try {
          redisMode = await startLeadline(
            { DATABASE_URL: store.url, REDIS_URL: redisUrl, REDIS_KEY_PREFIX: prefix },
            logFile('leadline-redis'),
            serverOpts,
          );
        } catch (err) {
          rows.push({ ...base(6, 'rate limiter: Redis / memory'), leadline: 'skipped', note: String(err.message) });
        }
        if (redisMode) {
          servers.push(redisMode);
          log(`${kind}: 6 limiter Redis vs memory, list limit=1`);
          // the calls of many tenants: each request uses the next of TENANT_KEYS keys
          let k = 0;
          const tenantList = () => ({ path: listOne().path, headers: { 'x-api-key': tenantKeys[k++ % tenantKeys.length] } });
          const [r, m] = await compare('limiter', 200, [redisMode, tenantList], [leadline, tenantList]);
          const { Redis } = await import('ioredis');
          const redis = new Redis(redisUrl);
          const keys = await redis.keys(`${prefix}*`);
          if (keys.length) await redis.del(...keys);
          await redis.quit();
          const row = throughputRow(base(6, 'rate limiter Redis vs memory (list limit=1)'), r.rps, m.rps, 0.8, '≥ 0.8× memory');
          row.floor = `${row.floor} (memory)`;
          row.note =
            `${tenantKeys.length} keys in turn; server CPU per request: Redis mode ${r.cpuUs.toFixed(0)} µs, memory mode ${m.cpuUs.toFixed(0)} µs; ` +
            (keys.length ? `Redis mode confirmed (${keys.length} sorted sets)` : 'WARNING: no keys in Redis, the server fell back to memory');
          rows.push(row);
          rss.push({ store: kind, mode: 'Redis limiter', mb: await redisMode.stop() });
          servers.pop();
        }
      }
    }
    // ---- 7: dialer claims on the million-lead campaign (PostgreSQL) -----------------------
    if (wants(7) && kind === 'postgres') {
      const api = await dialerApi();
      if (!api) rows.push(pendingDialer());
      else {
        const r = await benchDialer({
          api, url: store.url, campaignId: M, workers: 4, concurrency: DIALER_CONCURRENCY,
          warmSeconds: S.warmSeconds * 2, seconds: S.dialerSeconds, logFile: logFile('dialer'), log,
        });
        const indexOnly = planUsesIndexOnly(r.plan);
        rows.push({
          ...base(7, `dialer: leads claimed + completed, 4 workers, ${S.big.toLocaleString('en-US')}-lead campaign`),
          leadline: `${Math.round(r.rate).toLocaleString('en-US')} leads/s`,
          ratio: '',
          target: '≥ 2000 leads/s, index plan, no seq scan',
          met: r.rate >= 2000 && indexOnly,
          note: `${r.attempts.toLocaleString('en-US')} attempts in ${S.dialerSeconds} s; simulate provider, 0 s calls, concurrency ${DIALER_CONCURRENCY} per worker; worker CPU ${r.cpuUsPerLead.toFixed(0)} µs per lead, peak RSS ${r.rss.toFixed(0)} MB per worker; claim plan ${indexOnly ? 'uses an index, no sequential scan' : 'HAS A SEQUENTIAL SCAN OR NO INDEX'} (below)`,
        });
        plans.push({ title: 'PostgreSQL: the dialer claim statement (EXPLAIN)', plan: r.plan });
      }
    }
  } finally {
    rss.unshift({ store: kind, mode: 'memory limiter', mb: await leadline.stop() });
    for (const s of servers.slice(1)) await s.stop();
  }
  return { kind, rows, rss, plans, floors };
}

async function main() {
  const stores = option('stores')?.split(',') ?? ['sqlite', 'postgres'];
  const results = [];
  const skipped = [];
  for (const kind of stores) {
    if (kind === 'postgres' && !(await pgAvailable())) {
      skipped.push('PostgreSQL not reachable: its rows were skipped');
      continue;
    }
    results.push(await benchStore(kind));
  }
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
  if (wants(7) && !rows.some((r) => r.n === 7)) rows.push(pendingDialer(stores.includes('postgres') ? 'PostgreSQL not reachable' : 'PostgreSQL not in --stores'));
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
    rows.push({ n: 9, name: 'peer: Directus over SQLite', store: 'SQLite', leadline: why, met: null, note: 'to include it: npm install in bench/peers/directus (see its README.md)' });
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
