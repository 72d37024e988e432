import { createStore } from '../lib/stores.js';
import * as repo from '../../dist/leads/repository.js';
import { capture, explain } from '../lib/explain.js';
import { sql } from 'kysely';
const store = await createStore('postgres');
try {
  const A = await store.campaign('a'); const B = await store.campaign('b');
  const k = store.db.kysely;
  await sql`alter table leads set (autovacuum_enabled = false)`.execute(k);
  for (const [c, n0, n] of [[A, 1, 300000], [B, 300001, 50000]]) await sql`insert into leads (id, campaign_id, phone_number, external_id, metadata, status, priority, attempts, created_at)
    select 'x' || i, ${c}, '+1' || (3000000000 + i), 'e' || i, '{}', 'raw', 0, 0, 1 from generate_series(${n0}::int, ${n0 + n - 1}::int) i`.execute(k);
  const { rows } = await sql`select reltuples, relpages from pg_class where relname = 'leads'`.execute(k);
  console.log(rows);
  for (const after of [0, 299000, 299900]) {
    const [st] = await capture(store, (kk) => repo.listPage(kk, 'postgres', A, undefined, after, 1000));
    console.log('after', after, '\n' + (await explain(store, st)).split('\n').filter(l => /Scan|Sort|Cond/.test(l)).join('\n'));
    const t = Date.now(); for (let i = 0; i < 5; i++) await repo.listPage(k, 'postgres', A, undefined, after, 1000); console.log((Date.now() - t) / 5, 'ms');
  }
  const [st2] = await capture(store, (kk) => repo.listPage(kk, 'postgres', A, 'raw', 299000, 1000));
  console.log('status\n' + (await explain(store, st2)).split('\n').filter(l => /Scan|Sort|Cond/.test(l)).join('\n'));
} finally { await store.db.close(); await store.drop(); }
