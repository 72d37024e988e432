import { createStore } from '../lib/stores.js';
import * as repo from '../../dist/leads/repository.js';
import { capture } from '../lib/explain.js';
import pg from 'pg';
const store = await createStore('postgres');
try {
  const A = await store.campaign('a');
  const rows = Array.from({ length: 5000 }, (_, i) => ({ id: 'ld_' + i, phoneNumber: '+1' + (2000000000 + i), externalId: 'e' + i, metadata: '{"a":1}', scheduledFor: null, priority: 0 }));
  await store.db.writeTx((tx) => repo.insertMany(tx, 'postgres', A, rows, Date.now()));
  await (await import('kysely')).sql`analyze leads`.execute(store.db.kysely);
  const [st] = await capture(store, (k) => repo.listPage(k, 'postgres', A, undefined, 0, 1));
  const c = new pg.Client(store.url); await c.connect();
  const jStart = st.sql.indexOf("select seq,");
  const j = st.sql.slice(jStart, st.sql.indexOf("from leads", jStart));
  const oldPage = `select '[' || coalesce(string_agg(j, ',' order by seq), '') || ']' as page, count(*) as n, max(seq) as last from (${j} from leads where campaign_id = $1 and seq > $2 order by seq limit $3) page`;
  const probe = `select 1 as x from leads where campaign_id = $1 and seq > $2 order by seq limit 1`;
  const best = { one: Infinity, two: Infinity };
  for (let r = 0; r < 10; r++) {
    let t = process.hrtime.bigint();
    for (let i = 0; i < 300; i++) await c.query(st.sql, st.parameters);
    best.one = Math.min(best.one, Number(process.hrtime.bigint() - t) / 300 / 1000);
    t = process.hrtime.bigint();
    for (let i = 0; i < 300; i++) { await c.query(oldPage, [A, 0, 1]); await c.query(probe, [A, 1]); }
    best.two = Math.min(best.two, Number(process.hrtime.bigint() - t) / 300 / 1000);
  }
  console.log(best);
  await c.end();
} finally { await store.db.close(); await store.drop(); }
