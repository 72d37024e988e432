import { createDb } from '../../dist/db/index.js';
import { createCompany, createCampaign } from '../../dist/campaigns/service.js';
import * as repo from '../../dist/leads/repository.js';
import { capture } from '../lib/explain.js';
import SQLite from 'better-sqlite3';
import { rmSync } from 'node:fs';
rmSync('/tmp/prof/m4.db', { force: true });
const db = createDb({ kind: 'sqlite', path: '/tmp/prof/m4.db' });
await db.migrate();
const { companyId } = await createCompany(db, 'x');
const { campaignId } = await createCampaign(db, { companyId, name: 'c' });
const rows = Array.from({ length: 5000 }, (_, i) => ({ id: 'ld_' + i, phoneNumber: '+1' + (2000000000 + i), externalId: 'e' + i, metadata: '{"a":1}', scheduledFor: null, priority: 0 }));
await db.writeTx((tx) => repo.insertMany(tx, 'sqlite', campaignId, rows, Date.now()));
const [st] = await capture({ kind: 'sqlite', url: 'sqlite:/tmp/prof/m4.db' }, (k) => repo.listPage(k, 'sqlite', campaignId, undefined, 0, 1));
const d = new SQLite('/tmp/prof/m4.db');
const jFull = st.sql.slice(st.sql.indexOf("select seq,"), st.sql.indexOf("from leads", st.sql.indexOf("select seq,")));
const V = {
  old: [`select '[' || coalesce(group_concat(j, ',' order by seq), '') || ']' as page, count(*) as n, max(seq) as last from (${jFull} from leads where campaign_id = ? and seq > ? order by seq limit ?) page`, [campaignId, 0, 1]],
  probe: [`select 1 as x from leads where campaign_id = ? and seq > ? order by seq limit 1`, [campaignId, 1]],
  new: [st.sql, st.parameters],
  oldSubq: [`select page, n, last, (n = ? and (select 1 from leads where campaign_id = ? and seq > last order by seq limit 1) is not null) as more from (select '[' || coalesce(group_concat(j, ',' order by seq), '') || ']' as page, count(*) as n, max(seq) as last from (${jFull} from leads where campaign_id = ? and seq > ? order by seq limit ?) page)`, [1, campaignId, campaignId, 0, 1]],
};
const prepared = Object.fromEntries(Object.entries(V).map(([k, [sql, p]]) => [k, [d.prepare(sql), p]]));
const best = {};
for (let round = 0; round < 15; round++) {
  for (const [k, [s, p]] of Object.entries(prepared)) {
    const n = 2000;
    const t = process.hrtime.bigint();
    for (let i = 0; i < n; i++) s.all(...p);
    const us = Number(process.hrtime.bigint() - t) / n / 1000;
    best[k] = Math.min(best[k] ?? Infinity, us);
  }
}
for (const [k, v] of Object.entries(best)) console.log(k.padEnd(10), v.toFixed(1), 'µs (best of 15 × 2000)');

