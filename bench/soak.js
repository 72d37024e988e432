#!/usr/bin/env node
/**
 * Soak: mixed traffic at a steady rate against ONE `leadline serve` on
 * 127.0.0.1 for ten minutes (creates, bulk creates, lists, deletes, bulk
 * deletes, and a key that keeps hitting its limit) while a continuous
 * `leadline dialer` calls the leads as they arrive (simulate provider, calls
 * of up to 1 s), then the figures that say whether it stays healthy: RSS of both
 * processes at the start and the end, p50/p99 per minute, the attempts made,
 * and the final lead count against what the clients were told. Both processes
 * run on the Node that runs this script (docs/runtimes.md: the Node 24 soak).
 * Not part of CI: run it by hand after `npm run build`.
 *
 *   node bench/soak.js                    10 minutes, 100 requests/s, fresh SQLite
 *   SOAK_SECONDS=60 SOAK_RPS=200 node bench/soak.js
 *   SOAK_DATABASE_URL=postgres://…/db node bench/soak.js   (an empty database)
 *   SOAK_DIALER=0 node bench/soak.js      the server alone
 *
 * Exits 1 when the count does not match, any request failed at the network or
 * with a 5xx, p99 drifted more than 3× (and 25 ms) from minute 2 to the last,
 * RSS grew more than 50 % after minute 1, or the dialer exited or made no calls.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createKey } from '../dist/auth/service.js';
import { createCampaign, createCompany, updateCampaign } from '../dist/campaigns/service.js';
import { parseDatabaseUrl } from '../dist/config.js';
import { openStore } from '../dist/store/index.js';

const SECONDS = Number(process.env.SOAK_SECONDS ?? 600);
const RPS = Number(process.env.SOAK_RPS ?? 100);
const MAX_IN_FLIGHT = 256;
const WORKER_KEYS = 10;
const CAMPAIGNS = 4;
const BULK = 100;
const LIMITS = { perMinute: 600, bulkPerMinute: 60, perHour: 40_000 };
// Share of ticks per operation. Per worker key this stays under its limits at
// 100 requests/s (≈ 7 calls/s and 0.8 bulks/s per key); the abuser key does not.
const MIX = [
  ['create', 35],
  ['delete', 15],
  ['list', 25],
  ['bulk', 4],
  ['bulkDelete', 4],
  ['abuse', 17],
];
const DIALER = process.env.SOAK_DIALER !== '0';
/** the campaigns call around the clock, anyone's local time, quickly, so the dialer keeps busy */
const CALLING = {
  hours: 'mon-sun 00:00-24:00',
  local_window: '00:00-24:00',
  regional_rules: 'off',
  concurrency: 5,
  max_attempts: 3,
  retry_delay_ms: 0,
  simulate_duration: '0s-1s',
};
const BIN = fileURLToPath(new URL('../bin/leadline.js', import.meta.url));

const tmp = mkdtempSync(join(tmpdir(), 'leadline-soak-'));
const databaseUrl = process.env.SOAK_DATABASE_URL ?? `sqlite:${join(tmp, 'soak.db')}`;

async function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer().once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

function rssMb(pid) {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'));
  return Math.round(Number(line.replace(/\D+/g, '')) / 1024);
}

function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function setup() {
  const db = openStore(parseDatabaseUrl(databaseUrl), { pgPoolSize: 2 });
  await db.migrate();
  const { companyId } = await createCompany(db, 'Soak Co');
  const campaigns = [];
  for (let i = 0; i < CAMPAIGNS; i++) {
    const { campaignId } = await createCampaign(db, { companyId, name: `Soak ${i}` });
    if (DIALER) await updateCampaign(db, campaignId, CALLING);
    campaigns.push(campaignId);
  }
  const key = async (name) => (await createKey(db, { companyId, name, scope: 'write' })).key;
  const workers = [];
  for (let i = 0; i < WORKER_KEYS; i++) workers.push(await key(`worker ${i}`));
  const keys = { workers, abuser: await key('abuser'), auditor: await key('auditor') };
  await db.close();
  return { campaigns, keys };
}

async function startServer(port) {
  const child = spawn(process.execPath, [BIN, 'serve'], {
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      HOST: '127.0.0.1',
      PORT: String(port),
      LOG_LEVEL: 'warn',
      RATE_LIMIT_PER_MINUTE: String(LIMITS.perMinute),
      RATE_LIMIT_BULK_PER_MINUTE: String(LIMITS.bulkPerMinute),
      RATE_LIMIT_PER_HOUR: String(LIMITS.perHour),
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 150; i++) {
    try {
      if ((await fetch(`${url}/api/health`)).ok) return { child, url };
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error('server did not start');
}

function startDialer() {
  const child = spawn(process.execPath, [BIN, 'dialer'], {
    env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise((r) => child.once('exit', (code, signal) => r({ code, signal })));
  return { child, exited };
}

async function attemptCount() {
  const db = openStore(parseDatabaseUrl(databaseUrl), { pgPoolSize: 1 });
  try {
    const { n } = await db.kysely
      .selectFrom('attempts')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    return Number(n);
  } finally {
    await db.close();
  }
}

async function main() {
  const { campaigns, keys } = await setup();
  const { child, url } = await startServer(await freePort());
  const dialer = DIALER ? startDialer() : null;
  let dialerExit = null;
  dialer?.exited.then((e) => (dialerExit = e));
  const stop = () => {
    child.kill('SIGKILL');
    dialer?.child.kill('SIGKILL');
  };
  process.once('SIGINT', () => {
    stop();
    process.exit(130);
  });

  let phone = 2_000_000_000;
  const nextPhone = () => `+1${phone++}`;
  const known = campaigns.map(() => []); // phone numbers the server said exist, per campaign
  const told = { created: 0, deleted: 0 };
  const statuses = new Map();
  const problems = [];
  let tick = 0;
  let inFlight = 0;
  let skipped = 0;
  // per minute: latencies of answered non-429 requests, 429 count, RSS at its end
  const minutes = [];
  const minute = (t) => (minutes[t] ??= { latencies: [], limited: 0, requests: 0 });

  // each operation cycles through the worker keys on its own, so every key gets the same mix
  const turns = Object.fromEntries(MIX.map(([op]) => [op, 0]));
  const call = async (op, fn, due) => {
    const key = op === 'abuse' ? keys.abuser : keys.workers[turns[op]++ % WORKER_KEYS];
    const started = performance.now();
    const m = minute(Math.floor((due - t0) / 60_000));
    m.requests++;
    inFlight++;
    try {
      const { method, path, body, after } = fn();
      const res = await fetch(`${url}${path}`, {
        method,
        headers: { 'x-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body && JSON.stringify(body),
      });
      const json = await res.json();
      const ms = performance.now() - started;
      statuses.set(`${op} ${res.status}`, (statuses.get(`${op} ${res.status}`) ?? 0) + 1);
      if (res.status === 429) m.limited++;
      else m.latencies.push(ms);
      if (res.status >= 500) problems.push(`${op}: ${res.status} ${json.error}`);
      after?.(res.status, json);
    } catch (err) {
      problems.push(`${op}: ${err.message}`);
    } finally {
      inFlight--;
    }
  };

  const ops = {
    create: (c) => () => {
      const phoneNumber = nextPhone();
      return {
        method: 'POST',
        path: '/api/v1/leads',
        body: { campaignId: campaigns[c], phoneNumber, metadata: { soak: true } },
        after: (s) => {
          if (s !== 201) return;
          told.created++;
          known[c].push(phoneNumber);
        },
      };
    },
    delete: (c) => () => {
      const phoneNumber = known[c].shift();
      if (!phoneNumber) return ops.list(c)();
      return {
        method: 'DELETE',
        path: `/api/v1/leads?campaignId=${campaigns[c]}&phoneNumber=${encodeURIComponent(phoneNumber)}`,
        after: (s) => (s === 200 ? told.deleted++ : s === 429 ? known[c].push(phoneNumber) : problems.push(`delete ${phoneNumber}: ${s}`)),
      };
    },
    list: (c) => () => ({ method: 'GET', path: `/api/v1/leads?campaignId=${campaigns[c]}&limit=100` }),
    bulk: (c) => () => {
      const leads = Array.from({ length: BULK }, () => ({ phoneNumber: nextPhone() }));
      return {
        method: 'POST',
        path: '/api/v1/leads/bulk',
        body: { campaignId: campaigns[c], leads },
        after: (s, json) => {
          if (s !== 200) return;
          told.created += json.data.created;
          known[c].push(...leads.map((l) => l.phoneNumber));
        },
      };
    },
    bulkDelete: (c) => () => {
      const phones = known[c].splice(0, BULK);
      if (phones.length === 0) return ops.list(c)();
      return {
        method: 'POST',
        path: '/api/v1/leads/bulk-delete',
        body: { campaignId: campaigns[c], leads: phones.map((phoneNumber) => ({ phoneNumber })) },
        after: (s, json) => {
          if (s === 200) told.deleted += json.data.deleted;
          else known[c].push(...phones);
          if (s === 200 && json.data.notFound > 0) problems.push(`bulk delete: ${json.data.notFound} not found`);
        },
      };
    },
    abuse: (c) => () => ({ method: 'GET', path: `/api/v1/leads?campaignId=${campaigns[c]}&limit=10` }),
  };
  const wheel = MIX.flatMap(([op, share]) => Array(share).fill(op));

  const rssStart = rssMb(child.pid);
  const dialerRss = [];
  const rss = [];
  const t0 = Date.now();
  const interval = 1000 / RPS;
  console.log(
    `soak: ${SECONDS} s at ${RPS} requests/s on ${databaseUrl.split(':')[0]}, Node ${process.version}, server pid ${child.pid}, ` +
      `RSS ${rssStart} MB before traffic${dialer ? `; dialer pid ${dialer.child.pid}` : ''}`,
  );
  const pending = new Set();
  for (; tick < SECONDS * RPS; tick++) {
    const due = t0 + tick * interval;
    const wait = due - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const op = wheel[(tick * 37) % wheel.length]; // a fixed, well-spread order
    if (inFlight >= MAX_IN_FLIGHT) skipped++;
    else {
      const p = call(op, ops[op](tick % CAMPAIGNS), due);
      pending.add(p);
      p.finally(() => pending.delete(p));
    }
    // minute by schedule, so a minute is reported once all its requests are out
    const elapsed = Math.floor((due - t0) / 60_000);
    if (rss.length <= elapsed) {
      rss.push(rssMb(child.pid));
      if (dialer && dialerExit === null) dialerRss.push(rssMb(dialer.child.pid));
      if (elapsed > 0) report(elapsed - 1);
    }
  }
  await Promise.all(pending);
  const rssEnd = rssMb(child.pid);
  const dialerRssEnd = dialer && dialerExit === null ? rssMb(dialer.child.pid) : null;
  report(minutes.length - 1);

  function report(m) {
    const x = minutes[m];
    if (!x) return;
    const sorted = [...x.latencies].sort((a, b) => a - b);
    console.log(
      `minute ${String(m + 1).padStart(2)}: ${x.requests} requests, ${x.limited} × 429, ` +
        `p50 ${percentile(sorted, 50).toFixed(1)} ms, p99 ${percentile(sorted, 99).toFixed(1)} ms, RSS ${rss[m + 1] ?? rssMb(child.pid)} MB` +
        (dialer ? `, dialer RSS ${dialerRss[m + 1] ?? '?'} MB` : ''),
    );
  }

  // What the clients were told against what is there: through the API, then in the database.
  let listed = 0;
  for (const campaignId of campaigns) {
    for (let cursor = ''; ; ) {
      const res = await fetch(`${url}/api/v1/leads?campaignId=${campaignId}&limit=8000${cursor && `&cursor=${cursor}`}`, {
        headers: { 'x-api-key': keys.auditor },
      });
      const { data } = await res.json();
      listed += data.count;
      cursor = data.cursor;
      if (!data.hasMore) break;
    }
  }
  // the dialer first: SIGTERM lets its calls finish and exits 0
  const diedEarly = dialerExit;
  const attempts = dialer ? await attemptCount() : 0;
  if (dialer && dialerExit === null) dialer.child.kill('SIGTERM');
  const dialerEnd = dialer ? await dialer.exited : null;
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  const db = openStore(parseDatabaseUrl(databaseUrl), { pgPoolSize: 1 });
  const { n } = await db.kysely
    .selectFrom('leads')
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  await db.close();
  const expected = told.created - told.deleted;

  // Drift is measured from minute 2: minute 1 holds the JIT warm-up and the first page-cache misses.
  const base = minutes.length > 2 ? 1 : 0;
  const first = [...minutes[base].latencies].sort((a, b) => a - b);
  const last = [...minutes.at(-1).latencies].sort((a, b) => a - b);
  const p99First = percentile(first, 99);
  const p99Last = percentile(last, 99);
  const rssWarm = rss[1] ?? rssEnd;
  console.log('\nstatuses:', JSON.stringify(Object.fromEntries([...statuses].sort())));
  console.log(`requests: ${tick - skipped} sent, ${skipped} skipped (more than ${MAX_IN_FLIGHT} in flight)`);
  console.log(`RSS: ${rssStart} MB before traffic, ${rssWarm} MB after minute 1, ${rssEnd} MB at the end`);
  console.log(
    `latency (non-429): minute ${base + 1} p50 ${percentile(first, 50).toFixed(1)} / p99 ${p99First.toFixed(1)} ms; minute ${minutes.length} p50 ${percentile(last, 50).toFixed(1)} / p99 ${p99Last.toFixed(1)} ms`,
  );
  console.log(
    `leads: clients were told ${told.created} created − ${told.deleted} deleted = ${expected}; the API lists ${listed}; the database holds ${Number(n)}`,
  );

  if (dialer) {
    console.log(
      `dialer: ${attempts} attempts; RSS ${dialerRss[1] ?? '?'} MB after minute 1, ${dialerRssEnd ?? '?'} MB at the end; ` +
        `on SIGTERM it exited with ${JSON.stringify(dialerEnd)}`,
    );
  }
  const failures = [];
  if (diedEarly) failures.push(`the dialer exited during the soak: ${JSON.stringify(diedEarly)}`);
  if (dialer && !diedEarly && dialerEnd.code !== 0) failures.push(`the dialer did not exit 0 on SIGTERM: ${JSON.stringify(dialerEnd)}`);
  if (dialer && attempts === 0) failures.push('the dialer made no calls');
  if (dialerRssEnd !== null && dialerRss[1] && dialerRssEnd > 1.5 * dialerRss[1])
    failures.push(`dialer RSS grew from ${dialerRss[1]} to ${dialerRssEnd} MB`);
  if (expected !== listed || expected !== Number(n)) failures.push('the final count does not match what the clients were told');
  if (problems.length) failures.push(`${problems.length} failed requests, e.g. ${problems.slice(0, 3).join('; ')}`);
  if (p99Last > 3 * p99First && p99Last - p99First > 25)
    failures.push(`p99 drifted from ${p99First.toFixed(1)} to ${p99Last.toFixed(1)} ms`);
  if (rssEnd > 1.5 * rssWarm) failures.push(`RSS grew from ${rssWarm} to ${rssEnd} MB`);
  console.log(failures.length ? `\nSOAK FAILED:\n- ${failures.join('\n- ')}` : '\nsoak passed');
  rmSync(tmp, { recursive: true, force: true });
  process.exit(failures.length ? 1 : 0);
}

main().catch((err) => {
  console.error(err);
  rmSync(tmp, { recursive: true, force: true });
  process.exit(1);
});
