import { createStore } from '../lib/stores.js';
import * as repo from '../../dist/leads/repository.js';
import { capture, explain } from '../lib/explain.js';
const store = await createStore('postgres');
try {
  const A = await store.campaign('a');
  const rows = Array.from({ length: 5000 }, (_, i) => ({ id: 'ld_' + i, phoneNumber: '+1' + (2000000000 + i), externalId: 'e' + i, metadata: '{"a":1}', scheduledFor: null, priority: 0 }));
  await store.db.writeTx((tx) => repo.insertMany(tx, 'postgres', A, rows, Date.now()));
  const [st] = await capture(store, (k) => repo.listPage(k, 'postgres', A, undefined, 0, 1));
  console.log(await explain(store, st));
  const { sql } = await import('kysely');
  await sql`analyze leads`.execute(store.db.kysely);
  console.log(await explain(store, st));
} finally { await store.db.close(); await store.drop(); }
