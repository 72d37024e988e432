#!/usr/bin/env node
/**
 * Where the small-call budget goes (row 5): the same GET at 50 connections
 * against a ladder of servers, each adding one layer of leadline's per-request
 * work, from the bare node:http floor up to leadline itself. Prints req/s and
 * the server's CPU per request (steadier than req/s on a shared machine).
 * Usage: npm run build && node bench/diag/ladder.js [seconds per run]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { throughput } from '../lib/load.js';
import { killAll, start, startFloor, startLeadline } from '../lib/procs.js';
import { createStore } from '../lib/stores.js';
import { bulkBody } from '../lib/data.js';

const seconds = Number(process.argv[2] ?? 2);
const rounds = 3;
const tmp = mkdtempSync(join(tmpdir(), 'leadline-ladder-'));
const RUNG = fileURLToPath(new URL('./ladder-server.js', import.meta.url));
const store = await createStore('sqlite', tmp);
try {
  const A = await store.campaign('ladder');
  const key = await store.key('ladder');
  await store.db.close();
  const H = { 'x-api-key': key };
  const path = `/api/v1/leads?campaignId=${A}&limit=1`;
  const leadline = await startLeadline({ DATABASE_URL: store.url }, join(tmp, 'leadline.log'));
  await fetch(`${leadline.url}/api/v1/leads/bulk`, {
    method: 'POST',
    headers: { ...H, 'content-type': 'application/json' },
    body: bulkBody(A, 10),
  });
  const bytes = Buffer.byteLength(await (await fetch(leadline.url + path, { headers: H })).text());
  const servers = [
    ['node:http (the floor)', await startFloor('', join(tmp, 'floor.log'), { FLOOR_SMALL: JSON.stringify({ GET: [bytes, 200] }) })],
  ];
  for (const [label, rung] of [
    ['Fastify, bare', 'fastify'],
    ['+ pino line per request', 'log'],
    ['+ helmet headers (as leadline)', 'helmet'],
    ['+ 3 async hooks', 'hooks'],
  ]) {
    servers.push([
      label,
      await start(
        rung,
        [RUNG],
        { RUNG: rung, BYTES: String(bytes), LOG_FILE: join(tmp, `${rung}.log`) },
        '/health',
        join(tmp, `${rung}.out`),
      ),
    ]);
  }
  servers.push(['leadline (auth, limiter, SQLite)', leadline]);
  const make = () => ({ path, headers: H });
  const totals = servers.map(() => ({ answered: 0, seconds: 0, cpu: 0 }));
  for (const [, srv] of servers) await throughput(srv.url, make, { connections: 50, seconds: 1 });
  for (let r = 0; r < rounds; r++) {
    for (const [i, [, srv]] of servers.entries()) {
      const res = await throughput(srv.url, make, { connections: 50, seconds, server: srv });
      totals[i].answered += res.answered;
      totals[i].seconds += res.seconds;
      totals[i].cpu += res.cpuUs * res.answered;
    }
  }
  const base = totals[0].answered / totals[0].seconds;
  console.log(`GET answering ${bytes} bytes, 50 connections, ${rounds} × ${seconds} s each, interleaved`);
  for (const [i, [label]] of servers.entries()) {
    const rps = totals[i].answered / totals[i].seconds;
    console.log(
      `${label.padEnd(34)} ${String(Math.round(rps)).padStart(7)} req/s  ${(rps / base).toFixed(2)}× floor  ${(totals[i].cpu / totals[i].answered).toFixed(0).padStart(5)} µs CPU/request`,
    );
  }
  for (const [, srv] of servers) await srv.stop();
} finally {
  killAll();
  await store.drop();
  rmSync(tmp, { recursive: true, force: true });
}
