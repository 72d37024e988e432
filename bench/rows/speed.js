/**
 * Rows 10 and 11: the running dialer's reflexes.
 *
 * Row 10, speed to lead: one `leadline dialer` process serving every campaign
 * sits idle; a lead is created with `POST /api/v1/leads`; the figure is the
 * time from the API's 201 to the provider (a local webhook receiver) receiving
 * the call. The leads are created one at a time, spaced apart, so every sample
 * is an idle dialer waking up (LISTEN/NOTIFY on PostgreSQL, data_version on
 * SQLite). The floor is the unavoidable part of that path: one HTTP POST from
 * this process to the same receiver.
 *
 * Row 11, an idle dialer's cost: the same dialer over 1,000 open campaigns
 * with nothing due, CPU as a share of one core (and on PostgreSQL the
 * transactions per second it makes, read from pg_stat_database).
 */
import { spawn } from 'node:child_process';
import { openSync } from 'node:fs';
import http from 'node:http';
import { sql } from 'kysely';
import { createCampaign } from '../../dist/campaigns/service.js';
import { parseDatabaseUrl } from '../../dist/config.js';
import { openStore } from '../../dist/store/index.js';
import { median, percentile } from '../lib/load.js';
import { LEADLINE_BIN, cpuMs, peakRssMb } from '../lib/procs.js';
import { fmtMs } from '../lib/stats.js';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** a webhook call provider on 127.0.0.1 that notes when each lead's call arrives */
export async function receiver() {
  const arrived = new Map();
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (d) => (raw += d));
    req.on('end', () => {
      const at = performance.now();
      try {
        const { leadId } = JSON.parse(raw);
        if (leadId) arrived.set(leadId, at);
      } catch {
        // the floor's probe posts an empty body
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"success":true,"outcome":"answered"}');
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${server.address().port}/call`, arrived, close: () => new Promise((r) => server.close(r)) };
}

/**
 * One `leadline dialer` over every campaign, and its idle cost: after
 * warmSeconds (the first pass over every campaign is its start, not its idle
 * cost), CPU share from /proc and, on PostgreSQL, the database's
 * transactions per second over `seconds`. The dialer keeps running.
 */
export async function idleDialer(url, logFile, log, db, kind, { warmSeconds, seconds }) {
  const out = openSync(logFile, 'a');
  // BENCH_DIALER_PROF=DIR: the dialer runs under --cpu-prof, its profile written to DIR when it stops;
  // the profiler costs CPU of its own (an idle dialer over 10,000 campaigns read 5% instead of 0.5%)
  const prof = process.env.BENCH_DIALER_PROF ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_DIALER_PROF] : [];
  const child = spawn(process.execPath, [...prof, LEADLINE_BIN, 'dialer', '--poll-interval', '60s'], {
    env: { ...process.env, DATABASE_URL: url, LOG_LEVEL: 'info', OUTBOUND_ALLOW: '127.0.0.0/8' },
    stdio: ['ignore', out, out],
  });
  const exited = new Promise((r) => child.once('exit', r));
  const stop = async () => {
    if (child.exitCode === null) child.kill('SIGTERM');
    // the timer is cleared: left running, it kept the bench process alive 15 s after the dialer had exited
    let timer;
    await Promise.race([exited, new Promise((r) => (timer = setTimeout(r, 15_000)))]);
    clearTimeout(timer);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
  try {
    await sleep(warmSeconds * 1000);
    if (child.exitCode !== null) throw new Error(`the dialer exited; see ${logFile}`);
    log(`${kind}: an idle dialer for ${seconds} s`);
    const xacts = async () =>
      kind === 'postgres'
        ? Number(
            (await sql`select xact_commit + xact_rollback as n from pg_stat_database where datname = current_database()`.execute(db.kysely))
              .rows[0].n,
          )
        : NaN;
    const c0 = cpuMs(child.pid);
    const x0 = await xacts();
    const t0 = performance.now();
    await sleep(seconds * 1000);
    const elapsed = (performance.now() - t0) / 1000;
    const share = (cpuMs(child.pid) - c0) / 10 / elapsed;
    // the two reads of pg_stat_database are this process's own transactions
    const tps = (((await xacts()) - x0 - 2) / elapsed).toFixed(1);
    return { figures: { share, tps }, rss: () => peakRssMb(child.pid), stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** one POST to the receiver, as the dialer makes it: the floor of the path from 201 to the call */
function postOnce(url) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const req = http.request(url, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
      res.resume();
      res.on('end', () => resolve(performance.now() - t0));
    });
    req.on('error', reject);
    req.end('{}');
  });
}

export async function speedRows(ctx) {
  const { kind, S, store, leadline, base, rows, log, H } = ctx;
  const rx = await receiver();
  const db = openStore(parseDatabaseUrl(store.url), { pgPoolSize: 2 });
  const open = { companyId: store.companyId, hours: 'mon-sun 00:00-24:00', local_window: '00:00-24:00', regional_rules: 'off' };
  const { campaignId } = await createCampaign(db, { ...open, name: 'bench speed to lead', provider: 'webhook', provider_url: rx.url });
  // the idle campaigns of row 11, nothing due in any of them
  const served = [campaignId];
  for (let i = 0; i < S.idleCampaigns; i++) served.push((await createCampaign(db, { ...open, name: `bench idle ${i}` })).campaignId);
  // The other rows' campaigns hold due leads (row 4's million): paused, so that the dialer, which
  // serves every campaign, is idle. Unpaused, it was calling them, and no lead of row 10 arrived.
  await db.kysely
    .updateTable('campaigns')
    .set({ paused_at: Date.now(), paused_reason: 'bench: rows 10 and 11 measure an idle dialer' })
    .where('id', 'not in', served)
    .execute();
  // Row 11 first, while nothing at all is due.
  const dialer = await idleDialer(store.url, ctx.logFile('speed-dialer'), log, db, kind, {
    warmSeconds: S.idleWarmSeconds,
    seconds: S.idleSeconds,
  });
  try {
    const { share, tps } = dialer.figures;
    rows.push({
      ...base(11, `idle dialer over ${S.idleCampaigns.toLocaleString('en-US')} campaigns, CPU`),
      leadline: `${share.toFixed(1)}% of a core`,
      target: '< 5% of a core',
      met: share < 5,
      note:
        `${S.idleSeconds} s with nothing due, after ${S.idleWarmSeconds} s of warm-up; --poll-interval 60s; CPU from /proc (10 ms ticks)` +
        (kind === 'postgres' ? `; ${tps} transactions/s on the database (pg_stat_database, all sessions)` : ''),
    });

    // Row 10.
    log(`${kind}: 10 speed to lead, ${S.speedSamples} leads one at a time`);
    const floor = [];
    for (let i = 0; i < Math.min(S.speedSamples, 20); i++) floor.push(await postOnce(rx.url));
    const took = [];
    const lost = [];
    for (let i = 0; i < S.speedSamples; i++) {
      const res = await fetch(`${leadline.url}/api/v1/leads`, {
        method: 'POST',
        headers: { ...H, 'content-type': 'application/json' },
        body: JSON.stringify({ campaignId, phoneNumber: `+1202555${String(1000 + i).padStart(4, '0')}`, externalId: `speed-${i}` }),
      });
      const created = performance.now();
      if (res.status !== 201) throw new Error(`create answered ${res.status}: ${await res.text()}`);
      const { data } = await res.json();
      const deadline = created + 5000;
      while (!rx.arrived.has(data.leadId) && performance.now() < deadline) await sleep(1);
      if (rx.arrived.has(data.leadId)) took.push(rx.arrived.get(data.leadId) - created);
      else lost.push(data.leadId);
      // an idle dialer again before the next lead
      await sleep(S.speedGapMs);
    }
    const p99 = percentile(took, 99);
    rows.push({
      ...base(10, 'speed to lead: API 201 → the provider receives the call, idle dialer'),
      leadline: took.length ? fmtMs(median(took)) : 'none arrived',
      p99: took.length ? fmtMs(p99) : '',
      floor: fmtMs(median(floor)),
      floorP99: fmtMs(percentile(floor, 99)),
      target: 'p99 ≤ 250 ms',
      met: lost.length === 0 && took.length > 0 && p99 <= 250,
      note:
        `${took.length} leads created one at a time, ${S.speedGapMs} ms apart, webhook provider on 127.0.0.1` +
        (lost.length ? `; ${lost.length} NOT CALLED within 5 s` : '') +
        '; floor: one POST from the bench to the same receiver',
    });
  } finally {
    await dialer.stop();
    await rx.close();
    await db.close();
  }
}
