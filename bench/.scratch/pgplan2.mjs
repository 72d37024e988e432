import { createStore, seedLeads, lastPageCursor } from '../lib/stores.js';
import { decodeCursor } from '../../dist/leads/cursor.js';
import * as repo from '../../dist/leads/repository.js';
const store = await createStore('postgres');
const M = await store.campaign('m'); const A = await store.campaign('a');
await seedLeads(store, M, 1_000_000);
const after = decodeCursor(await lastPageCursor(store, M, 1000));
for (let b = 0; b < 120; b++) {
  const rows = Array.from({ length: 1000 }, (_, i) => ({ id: `x${b}_${i}`, phoneNumber: '+1' + (2000000000 + b * 1000 + i), externalId: `e${b}_${i}`, metadata: '{}', scheduledFor: null, priority: 0 }));
  await store.db.writeTx((tx) => repo.insertMany(tx, 'postgres', A, rows, Date.now()));
}
console.log(store.url, M, A, after);
await store.db.close();
