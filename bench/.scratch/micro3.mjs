import { createDb } from '../../dist/db/index.js';
import { createCompany, createCampaign } from '../../dist/campaigns/service.js';
import * as repo from '../../dist/leads/repository.js';
import { capture } from '../lib/explain.js';
import SQLite from 'better-sqlite3';
import { rmSync } from 'node:fs';
rmSync('/tmp/prof/m3.db', { force: true });
const db = createDb({ kind: 'sqlite', path: '/tmp/prof/m3.db' });
await db.migrate();
const { companyId } = await createCompany(db, 'x');
const { campaignId } = await createCampaign(db, { companyId, name: 'c' });
const rows = Array.from({ length: 5000 }, (_, i) => ({ id: 'ld_' + i, phoneNumber: '+1' + (2000000000 + i), externalId: 'e' + i, metadata: '{"a":1}', scheduledFor: null, priority: 0 }));
await db.writeTx((tx) => repo.insertMany(tx, 'sqlite', campaignId, rows, Date.now()));
const [st] = await capture({ kind: 'sqlite', url: 'sqlite:/tmp/prof/m3.db' }, (k) => repo.listPage(k, 'sqlite', campaignId, undefined, 0, 1));
const d = new SQLite('/tmp/prof/m3.db');
const variants = {
  new: st.sql,
  old: `select '[' || coalesce(group_concat(j, ',' order by seq), '') || ']' as page, count(*) as n, max(seq) as last from (select seq, '{"_id":' || json_quote(id) || '}' as j from leads where campaign_id = ? and seq > ? order by seq limit ?) page`,
  probe: `select 1 as x from leads where campaign_id = ? and seq > ? order by seq limit 1`,
};
function time(label, n, fn) {
  for (let i = 0; i < 500; i++) fn(i);
  const t = process.hrtime.bigint();
  for (let i = 0; i < n; i++) fn(i);
  console.log(label, (Number(process.hrtime.bigint() - t) / n / 1000).toFixed(1), 'µs');
}
const sNew = d.prepare(variants.new), sOld = d.prepare(variants.old), sProbe = d.prepare(variants.probe);
console.log(st.parameters);
time('new cached', 5000, () => sNew.all(...st.parameters));
time('old (short j) cached', 5000, () => sOld.all(campaignId, 0, 1));
time('probe cached', 5000, () => sProbe.all(campaignId, 1));
time('new cached, limit 1000', 200, () => sNew.all(...st.parameters.map((p, i) => (p === 1 ? 1000 : p))));
time('repo.listPage via kysely', 5000, () => repo.listPage(db.kysely, 'sqlite', campaignId, undefined, 0, 1));
const jFull = st.sql.slice(st.sql.indexOf("select seq,"), st.sql.indexOf("from leads"));
const oldFull = `select '[' || coalesce(group_concat(j, ',' order by seq), '') || ']' as page, count(*) as n, max(seq) as last from (${jFull} from leads where campaign_id = ? and seq > ? order by seq limit ?) page`;
const sOldFull = d.prepare(oldFull);
time('old full j', 5000, () => sOldFull.all(campaignId, 0, 1));
const noMore = st.sql.slice(0, st.sql.lastIndexOf('select page')) + 'select page, n, last from agg';
const sNoMore = d.prepare(noMore);
time('new without more', 5000, () => sNoMore.all(campaignId, 0, 1));
console.log(d.prepare('explain query plan ' + st.sql).all(...st.parameters).map(r=>r.id+' '+r.parent+' '+r.detail).join('\n'));
console.log(d.prepare('explain query plan ' + oldFull).all(campaignId, 0, 1).map(r=>r.id+' '+r.parent+' '+r.detail).join('\n'));
