#!/usr/bin/env node
/**
 * Instructions per request, counted by valgrind's callgrind: nearly the same
 * count for the same build and requests whatever else the machine is doing
 * (two starts of one build: within 4%), where CPU time per request on the
 * bench machine (a shared VM) moved by a factor of two from one start to the
 * next. For comparing two builds of leadline on the small calls (row 5) or a
 * bulk retry (row 2; bench/lib/data.js diagLoad), or
 * leadline against its floor. Printed twice: in all, and without V8's
 * optimizing compiler, whose background threads are counted too.
 *
 * Usage: npm run build && node bench/diag/instructions.js [list|create|retry] [sqlite|postgres] [requests] [repo ...]
 * Each repo (default: this one) is a checkout with dist/ built; its server is
 * started under callgrind, warmed up (WARM_SECONDS, default 60: under valgrind
 * V8's optimizing compiler was still busy after 20), its counts zeroed, and
 * counted over `requests` requests at 10 connections. Each server takes 2-4
 * minutes. `floor` in place of a repo counts the bench's floor server instead.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { diagLoad } from '../lib/data.js';
import { throughput } from '../lib/load.js';
import { killAll, leadlineEnv, start } from '../lib/procs.js';
import { diagStore } from '../lib/stores.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const [what = 'list', kind = 'sqlite', requestsArg = '3000', ...repos] = process.argv.slice(2);
const requests = Number(requestsArg);

// vgdb, which callgrind_control talks through, names its files after USER and
// HOST, read on both sides (the server is started with HOST=127.0.0.1)
const VGDB_ENV = { USER: process.env.USER || 'root', HOST: '127.0.0.1' };
const VGDB = { env: { ...process.env, ...VGDB_ENV } };

const { tmp, store, campaign, headers: H } = await diagStore(kind, 'instructions');
try {
  const { seed, make } = diagLoad(what, campaign, H);
  for (const [i, repo] of (repos.length ? repos : [ROOT]).entries()) {
    const out = join(tmp, `callgrind.${i}`);
    const valgrind = ['--tool=callgrind', `--callgrind-out-file=${out}`];
    const floor = repo === 'floor';
    const args = floor
      ? [...valgrind, process.execPath, join(ROOT, 'bench', 'floor', 'server.js')]
      : [...valgrind, process.execPath, join(repo, 'bin', 'leadline.js'), 'serve'];
    const env = { ...VGDB_ENV, ...(floor ? { FLOOR_DB: store.url } : leadlineEnv({ DATABASE_URL: store.url })) };
    const srv = await start(floor ? 'floor' : 'leadline', args, env, floor ? '/health' : '/api/health', join(tmp, `server.${i}.log`), [], {
      exec: 'valgrind',
      timeoutMs: 300_000,
    });
    if (i === 0)
      await fetch(`${srv.url}/api/v1/leads/bulk`, {
        method: 'POST',
        headers: { ...H, 'content-type': 'application/json' },
        body: seed,
      });
    const warm = await throughput(srv.url, make, { connections: 10, seconds: Number(process.env.WARM_SECONDS ?? 60) });
    execFileSync('callgrind_control', ['-z', String(srv.pid)], VGDB); // counts start here
    const counted = await countRequests(srv.url, make, requests);
    execFileSync('callgrind_control', ['-d', String(srv.pid)], VGDB);
    await srv.stop();
    const { total, compiler } = counts(`${out}.1`); // the -d dump
    const per = (n) => (n / counted).toFixed(0).padStart(9);
    console.log(
      `${(floor ? 'floor' : repo).padEnd(30)} ${what} ${kind}: ${per(total)} instructions a request, ${per(total - compiler)} without V8's compiler ` +
        `(${counted} counted after ${warm.answered} to warm up)`,
    );
  }
} finally {
  killAll();
  await store.drop();
}

async function countRequests(url, make, n) {
  let answered = 0;
  const one = async () => {
    while (answered < n) {
      answered++;
      const r = make();
      const res = await fetch(url + r.path, {
        method: r.method ?? 'GET',
        headers: r.body ? { ...r.headers, 'content-type': 'application/json' } : r.headers,
        body: r.body,
      });
      await res.arrayBuffer();
      if (!res.ok) throw new Error(`a counted request answered ${res.status}`);
    }
  };
  await Promise.all(Array.from({ length: 10 }, one));
  return answered;
}

/**
 * Instructions in all, and those of V8's optimizing compiler (its background
 * threads, counted too): a server still compiling hot code is not yet in its
 * steady state, so the second figure says how far the warm-up got.
 */
function counts(file) {
  const names = new Map();
  let fn = '';
  let call = false;
  let total = 0;
  let compiler = 0;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const named = /^c?fn=\((\d+)\)(?: (.*))?$/.exec(line);
    if (named) {
      if (named[2] !== undefined) names.set(named[1], named[2]);
      if (line.startsWith('fn=')) fn = names.get(named[1]) ?? '';
      continue;
    }
    if (line.startsWith('calls=')) {
      call = true; // the next cost line is the call's inclusive cost, not this function's own
      continue;
    }
    const cost = /^[0-9+*-]\S*\s+(\d+)/.exec(line);
    if (!cost) continue;
    if (call) {
      call = false;
      continue;
    }
    total += Number(cost[1]);
    if (fn.includes('v8::internal::compiler::')) compiler += Number(cost[1]);
  }
  return { total, compiler };
}
