import { createStore } from '../lib/stores.js';
import { startLeadline, startFloor } from '../lib/procs.js';
import { sequential, median, percentile } from '../lib/load.js';
import { singleBody } from '../lib/data.js';
const store = await createStore('sqlite');
const A = await store.campaign('a');
const key = await store.key('k');
await store.db.close();
const s = await startLeadline({ DATABASE_URL: store.url }, '/tmp/prof/leadline.log');
const f = await startFloor(store.url, '/tmp/prof/floor.log', { FLOOR_SMALL: JSON.stringify({ GET: [300, 200], POST: [75, 201] }) });
const H = { 'x-api-key': key };
const make = () => ({ method: 'POST', path: '/api/v1/leads', headers: H, body: singleBody(A) });
for (const [name, srv] of [['leadline', s], ['floor', f]]) {
  const r = await sequential(srv.url, make, 300);
  console.log(r.ms.map(x=>x.toFixed(1)).join(' '));
  console.log(name, 'median', median(r.ms).toFixed(2), 'p99', percentile(r.ms, 99).toFixed(2), [...r.statuses]);
}
const get = () => ({ path: `/api/v1/leads?campaignId=${A}&limit=1`, headers: H });
const r = await sequential(s.url, get, 50);
console.log('leadline GET median', median(r.ms).toFixed(2));
await s.stop(); await f.stop(); await store.drop();
