// profile leadline alone under one small-call load
import { createStore } from '../lib/stores.js';
import { startLeadline, startFloor } from '../lib/procs.js';
import { throughput } from '../lib/load.js';
import { singleBody, bulkBody } from '../lib/data.js';
import { readFileSync } from 'node:fs';
const which = process.argv[2] ?? 'list';
const logLevel = process.argv[3] ?? 'info';
const prof = process.argv.includes('--prof');
const store = await createStore('sqlite');
const A = await store.campaign('a');
const key = await store.key('k');
await store.db.close();
const cpu = (pid) => { const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' '); return (Number(f[11]) + Number(f[12])) * 10; }; // ms
const s = await startLeadline({ DATABASE_URL: store.url, LOG_LEVEL: logLevel }, '/tmp/prof/leadline.log', prof ? { nodeArgs: ['--cpu-prof', '--cpu-prof-dir=/tmp/prof'] } : {});
const H = { 'x-api-key': key };
await fetch(s.url + '/api/v1/leads/bulk', { method: 'POST', headers: { ...H, 'content-type': 'application/json' }, body: bulkBody(A, 1000) });
const make = which === 'list' ? () => ({ path: `/api/v1/leads?campaignId=${A}&limit=1`, headers: H }) : which === 'nf' ? () => ({ path: `/api/v1/leads?campaignId=nope&limit=1`, headers: H }) : which === 'health' ? () => ({ path: '/api/health' }) : () => ({ method: 'POST', path: '/api/v1/leads', headers: H, body: singleBody(A) });
await throughput(s.url, make, { connections: 50, seconds: 2 });
const c0 = cpu(s.pid);
const r = await throughput(s.url, make, { connections: 50, seconds: 8 });
const c1 = cpu(s.pid);
const n = [...r.statuses.values()].reduce((a, b) => a + b, 0);
console.log(which, logLevel, Math.round(r.rps), 'req/s', ((c1 - c0) * 1000 / n).toFixed(0), 'µs CPU/req', [...r.statuses]);
await s.stop();
await store.drop();
