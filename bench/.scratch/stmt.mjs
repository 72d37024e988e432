import SQLite from 'better-sqlite3';
import { capture } from '../lib/explain.js';
import * as repo from '../../dist/leads/repository.js';
const d = new SQLite('/tmp/prof/inj.db');
const campaignId = d.prepare('select id from campaigns limit 1').get().id;
const [st] = await capture({ kind: 'sqlite', url: 'sqlite:/tmp/prof/inj.db' }, (k) => repo.listPage(k, 'sqlite', campaignId, undefined, 0, 1));
const V = {
  current: st.sql,
  noAggOrder: st.sql.replace("group_concat(j, ',' order by seq)", "group_concat(j, ',')"),
  noMore: st.sql.replace(/\(n = \? and \(select 1 from leads where .* order by seq limit 1\) is not null\) as more/s, '0 as more'),
  trivial: 'select ? as a, ? as b, ? as c, ? as d, ? as e',
};
const best = {};
const prepared = Object.fromEntries(Object.entries(V).map(([k, s]) => [k, d.prepare(s)]));
for (const [k, s] of Object.entries(prepared)) { try { s.all(...st.parameters); } catch (e) { console.log(k, e.message); delete prepared[k]; } }
for (let r = 0; r < 10; r++) for (const [k, s] of Object.entries(prepared)) {
  const n = 3000; const t = process.hrtime.bigint(); for (let i = 0; i < n; i++) s.all(...st.parameters);
  best[k] = Math.min(best[k] ?? 1e9, Number(process.hrtime.bigint() - t) / n / 1000);
}
console.log(Object.fromEntries(Object.entries(best).map(([k, v]) => [k, v.toFixed(1) + ' µs'])));
console.log(st.parameters);
