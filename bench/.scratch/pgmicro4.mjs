import { createStore } from '../lib/stores.js';
import { sql } from 'kysely';
import pg from 'pg';
const store = await createStore('postgres');
try {
  const A = await store.campaign('a'); const B = await store.campaign('b');
  const k = store.db.kysely;
  await sql`alter table leads set (autovacuum_enabled = false)`.execute(k);
  for (const [c, n0, n] of [[A, 1, 300000], [B, 300001, 50000]]) await sql`insert into leads (id, campaign_id, phone_number, external_id, metadata, status, priority, attempts, created_at)
    select 'x' || i, ${c}, '+1' || (3000000000 + i), 'e' || i, '{}', 'raw', 0, 0, 1 from generate_series(${n0}::int, ${n0 + n - 1}::int) i`.execute(k);
  const cl = new pg.Client(store.url); await cl.connect();
  const forms = {
    w: `(campaign_id, seq) > ($1, $2) and campaign_id <= $1 order by campaign_id, seq`,
    v: `(campaign_id, seq) > ($1, $2) and (campaign_id, seq) <= ($1, 9223372036854775807) order by campaign_id, seq`,
    plain: `campaign_id = $1 and seq > $2 order by seq`,
  };
  for (const stats of [false, true]) {
    if (stats) await cl.query('analyze leads');
    for (const [name, f] of Object.entries(forms)) for (const after of [0, 299900]) {
      const { rows } = await cl.query(`explain analyze select * from leads where ${f} limit 1000`, [A, after]);
      const lines = rows.map((r) => r['QUERY PLAN']);
      console.log(stats ? 'stats' : 'nostats', name, after, lines.find((l) => /Scan using/.test(l))?.trim().slice(0, 60), lines.at(-1));
    }
  }
  await cl.end();
} finally { await store.db.close(); await store.drop(); }
