/**
 * Row 5: small authenticated calls (list with limit=1, single create) at 50
 * connections, against the floor doing the one statement each call cannot do
 * without (the page's statement, the insert) and nothing else. Row 6: the
 * same list load with the rate limiter in Redis, against memory mode. Both
 * report req/s and the server's CPU per request, which is steadier than req/s
 * on a shared machine.
 */
import { smallCall } from '../lib/data.js';
import { expectStatus, interleaved, throughput } from '../lib/load.js';
import { startLeadline } from '../lib/procs.js';
import { sum, throughputRow } from '../lib/stats.js';
import { check, fetchText } from './checks.js';

const CONNECTIONS = 50;

/** S.tpRounds interleaved closed-loop runs of each side; req/s and CPU per request over all of them */
async function compare(ctx, label, want, [srvA, makeA], [srvB, makeB]) {
  const { S } = ctx;
  for (const [srv, make] of [
    [srvA, makeA],
    [srvB, makeB],
  ]) {
    await throughput(srv.url, make, { connections: CONNECTIONS, seconds: S.warmSeconds });
  }
  const tp = (srv, make) => () => throughput(srv.url, make, { connections: CONNECTIONS, seconds: S.seconds, server: srv });
  const [a, b] = await interleaved(S.tpRounds, tp(srvA, makeA), tp(srvB, makeB));
  for (const r of a.concat(b)) expectStatus(label, r.statuses, want);
  const total = (runs) => ({
    rps: sum(runs.map((r) => r.answered)) / sum(runs.map((r) => r.seconds)),
    cpuUs: sum(runs.map((r) => r.cpuUs * r.answered)) / sum(runs.map((r) => r.answered)),
  });
  return [total(a), total(b)];
}

export async function smallCallRows(ctx) {
  const { H, leadline, floor, campaigns, base, rows, log, kind } = ctx;
  const listOne = smallCall('list', campaigns.leadline, H);
  const createOne = smallCall('create', campaigns.leadline, H);
  // Before timing: the same page (same bytes) from both, and a 201 with the
  // new lead's id from both.
  const [get, floorGet] = await Promise.all([leadline, floor].map((s) => fetchText(s.url + listOne().path, { headers: H })));
  check('small calls', get.status === 200 && floorGet.text === get.text, 'the floor returns another page than leadline');
  const posts = [];
  for (const s of [leadline, floor]) {
    posts.push(
      await fetchText(s.url + '/api/v1/leads', {
        method: 'POST',
        headers: { ...H, 'content-type': 'application/json' },
        body: createOne().body,
      }),
    );
  }
  for (const p of posts)
    check('small calls', p.status === 201 && /^ld_/.test(JSON.parse(p.text).data.leadId), `create answered ${p.status}`);
  for (const [label, make, status, bytes] of [
    ['list limit=1', listOne, 200, Buffer.byteLength(get.text)],
    ['single create', createOne, 201, Buffer.byteLength(posts[0].text)],
  ]) {
    log(`${kind}: 5 ${label}, ${CONNECTIONS} connections`);
    const [l, f] = await compare(ctx, label, status, [leadline, make], [floor, make]);
    const row = throughputRow(base(5, `${label} (${CONNECTIONS} conn.)`), l.rps, f.rps, 0.5);
    row.note =
      `floor: bare node:http and one statement, answering the same ${bytes} bytes; server CPU per request: leadline ${l.cpuUs.toFixed(0)} µs, ` +
      `floor ${f.cpuUs.toFixed(0)} µs (ratio ${(f.cpuUs / l.cpuUs).toFixed(2)})`;
    rows.push(row);
  }
}

/** `tenantKeys`: the load goes round these keys, as the calls of many tenants do */
export async function limiterRow(ctx, tenantKeys) {
  const { store, campaigns, base, rows, rss, log, servers, kind } = ctx;
  const redisUrl = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
  // per store: a quick run benches both stores at once
  const prefix = `leadline:bench:${process.pid}:${kind}:`;
  let redisMode;
  try {
    redisMode = await startLeadline(
      { DATABASE_URL: store.url, REDIS_URL: redisUrl, REDIS_KEY_PREFIX: prefix },
      ctx.logFile('leadline-redis'),
      ctx.serverOpts,
    );
  } catch (err) {
    rows.push({ ...base(6, 'rate limiter Redis vs memory'), leadline: 'skipped', note: String(err.message) });
    return;
  }
  servers.push(redisMode);
  // Memory mode is a fresh server too, started the same way: the main server
  // has served rows 1-5 (row 5 is this very request at 50 connections) and is
  // warmer, which alone made it 20-40% cheaper per request than a server just
  // started (full PostgreSQL runs: 122-149 µs against 177-230 µs per request),
  // and row 6 read that as the cost of Redis (0.70-0.71x in two full runs
  // whose row-6-only runs, both servers fresh, gave 0.95-1.04x).
  const memoryMode = await startLeadline({ DATABASE_URL: store.url }, ctx.logFile('leadline-memory'), ctx.serverOpts);
  servers.push(memoryMode);
  log(`${kind}: 6 limiter Redis vs memory, list limit=1`);
  let k = 0;
  const path = `/api/v1/leads?campaignId=${campaigns.leadline}&limit=1`;
  const tenantList = () => ({ path, headers: { 'x-api-key': tenantKeys[k++ % tenantKeys.length] } });
  const [r, m] = await compare(ctx, 'limiter', 200, [redisMode, tenantList], [memoryMode, tenantList]);
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
  servers.splice(servers.indexOf(redisMode), 1);
  rss.push({ store: kind, mode: 'memory limiter (row 6)', mb: await memoryMode.stop() });
  servers.splice(servers.indexOf(memoryMode), 1);
}
