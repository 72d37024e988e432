#!/usr/bin/env node
/**
 * A bulk retry's cost from one server start to the next: `leadline serve`
 * (or the floor) started again and again on the same SQLite database, each
 * start answering the same 1000-lead retry 100 times to warm up and 400 times
 * measured. Prints the server's CPU per retry and the median time, per start.
 * docs/perf-log.md ("2026-11-28, third session" item 5) used it to show that
 * on Node 24 the figure depends on the start, and why (`--trace-gc`).
 *
 *   node bench/diag/retry-starts.js [--starts=5] [--variants=leadline,floor]
 *     A variant is leadline, or the floor when it starts with `floor`, with the Node flags
 *     that follow, space separated (each start's log stays in the folder printed at the end):
 *     --variants="leadline,--trace-gc"   --variants="floor --cpu-prof --cpu-prof-dir=/tmp/p"
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bulkBody } from '../lib/data.js';
import { median, sequential } from '../lib/load.js';
import { cpuMs, startFloor, startLeadline } from '../lib/procs.js';
import { createStore } from '../lib/stores.js';

const argv = process.argv.slice(2);
const option = (name, dflt) => argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? dflt;
const starts = Number(option('starts', 5));
const variants = option('variants', 'leadline,floor').split(',');

const tmp = mkdtempSync(join(tmpdir(), 'leadline-retry-starts-'));
const store = await createStore('sqlite', tmp);
const campaignId = await store.campaign('retries');
const key = await store.key('retries');
await store.db.close();
const body = bulkBody(campaignId, 1000);
const request = () => ({
  method: 'POST',
  path: '/api/v1/leads/bulk',
  headers: { 'x-api-key': key, 'content-type': 'application/json' },
  body,
});

const results = new Map(variants.map((v) => [v, []]));
let created = false;
for (let s = 0; s < starts; s++) {
  for (const v of variants) {
    const log = join(tmp, `${v.replace(/\W+/g, '_')}-${s}.log`);
    const [name, ...flags] = v.split(' ');
    const floor = name === 'floor';
    const nodeArgs = floor || name === 'leadline' ? flags : [name, ...flags];
    const srv = floor
      ? await startFloor(store.url, log, {}, nodeArgs)
      : await startLeadline({ DATABASE_URL: store.url }, log, { nodeArgs });
    // the first request of the first start creates the leads; every later one is a retry
    if (!created) await sequential(srv.url, request, 1);
    created = true;
    await sequential(srv.url, request, 100);
    const before = cpuMs(srv.pid);
    const r = await sequential(srv.url, request, 400);
    results.get(v).push(`${((cpuMs(srv.pid) - before) / 400).toFixed(2)} / ${median(r.ms).toFixed(2)}`);
    // SIGTERM, so that --cpu-prof and the like write their files
    process.kill(srv.pid, 'SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 1500));
  }
}
console.log('CPU ms per retry / median ms, one column per start');
for (const [v, r] of results) console.log(`  ${v.padEnd(24)} ${r.join('   ')}`);
console.log(`logs: ${tmp}`);
