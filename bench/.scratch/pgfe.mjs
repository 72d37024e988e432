import { createStore, seedLeads } from '../lib/stores.js';
import pg from 'pg';
const store = await createStore('postgres');
try {
  const M = await store.campaign('m'); const A = await store.campaign('a');
  await seedLeads(store, [{ campaignId: M, n: 1_000_000 }, { campaignId: A, n: 100_000 }]);
  const c = new pg.Client(store.url); await c.connect();
  const ext = Array.from({ length: 1000 }, (_, i) => `seed-${1_050_000 + i}`);
  const ph = Array.from({ length: 1000 }, (_, i) => '+1' + (3000000000 + 1_050_000 + i));
  const V = {
    orAny: [`select external_id, phone_number from leads where campaign_id = $1 and (external_id = any($2::text[]) or phone_number = any($3::text[]))`, [A, ext, ph]],
    unionUnnest: [`select l.external_id, l.phone_number from unnest($2::text[]) v(x) join leads l on l.campaign_id = $1 and l.external_id = v.x
      union select l.external_id, l.phone_number from unnest($3::text[]) v(x) join leads l on l.campaign_id = $1 and l.phone_number = v.x`, [A, ext, ph]],
  };
  for (const [k, [q, p]] of Object.entries(V)) {
    const plan = (await c.query('explain (analyze, costs off, summary on) ' + q, p)).rows.map((r) => r['QUERY PLAN']);
    console.log(k, (await c.query(q, p)).rows.length, '\n  ' + plan.filter((l) => /Scan|Join|Loop|Execution|Append|Unique|Hash/.test(l)).map(l => l.slice(0, 110)).join('\n  '));
  }
  const best = {};
  for (let r = 0; r < 5; r++) for (const [k, [q, p]] of Object.entries(V)) {
    const t = process.hrtime.bigint(); for (let i = 0; i < 20; i++) await c.query(q, p);
    best[k] = Math.min(best[k] ?? 1e9, Number(process.hrtime.bigint() - t) / 20 / 1e6);
  }
  console.log(best);
  await c.end();
} finally { await store.db.close(); await store.drop(); }
