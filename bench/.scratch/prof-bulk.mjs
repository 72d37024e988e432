import { createStore } from '../lib/stores.js';
import { startLeadline, startFloor } from '../lib/procs.js';
import { sequential, median } from '../lib/load.js';
import { bulkBody } from '../lib/data.js';
import { readFileSync } from 'node:fs';
const kind = process.argv[2] ?? 'sqlite';
const prof = process.argv.includes('--prof');
const store = await createStore(kind);
const A = await store.campaign('a'); const B = await store.campaign('b');
const key = await store.key('k');
await store.db.close();
const cpu = (pid) => { const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' '); return (Number(f[11]) + Number(f[12])) * 10; };
const s = await startLeadline({ DATABASE_URL: store.url, LOG_LEVEL: 'info' }, '/tmp/prof/leadline-bulk.log', prof ? { nodeArgs: ['--cpu-prof', '--cpu-prof-dir=/tmp/prof'] } : {});
const f = await startFloor(store.url, '/tmp/prof/floor-bulk.log');
const H = { 'x-api-key': key };
const sent = { l: [], f: [] };
const mk = (c, arr) => () => { const body = bulkBody(c, 1000); arr.push(body); return { method: 'POST', path: '/api/v1/leads/bulk', headers: H, body }; };
await sequential(s.url, mk(A, sent.l), 3); await sequential(f.url, mk(B, sent.f), 3);
const res = { l: [], f: [], ld: [], fd: [] }; const cpus = { l: 0, f: 0, ld: 0, fd: 0 };
for (let r = 0; r < 4; r++) {
  for (const [k, srv, make] of [['l', s, mk(A, sent.l)], ['f', f, mk(B, sent.f)]]) {
    const c0 = cpu(srv.pid); res[k].push(...(await sequential(srv.url, make, 10)).ms); cpus[k] += cpu(srv.pid) - c0;
  }
  for (const [k, srv, arr] of [['ld', s, sent.l], ['fd', f, sent.f]]) {
    let i = 0; const c0 = cpu(srv.pid);
    res[k].push(...(await sequential(srv.url, () => ({ method: 'POST', path: '/api/v1/leads/bulk', headers: H, body: arr[i++] }), 10)).ms); cpus[k] += cpu(srv.pid) - c0;
  }
}
for (const k of Object.keys(res)) console.log(kind, k, 'median', median(res[k]).toFixed(1), 'ms; cpu/req', (cpus[k] / res[k].length).toFixed(1), 'ms');
await s.stop(); await f.stop(); await store.drop();
