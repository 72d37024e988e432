import { createStore } from '../lib/stores.js';
import * as repo from '../../dist/leads/repository.js';
import { capture, explain } from '../lib/explain.js';
for (const kind of ['sqlite', 'postgres']) {
  const store = await createStore(kind);
  try {
    const A = await store.campaign('a');
    for (let b = 0; b < 20; b++) {
      const rows = Array.from({ length: 1000 }, (_, i) => ({ id: `x${b}_${i}`, phoneNumber: '+1' + (2000000000 + b * 1000 + i), externalId: `e${b}_${i}`, metadata: '{}', scheduledFor: null, priority: 0 }));
      await store.db.writeTx((tx) => repo.insertMany(tx, kind, A, rows, Date.now()));
    }
    const { sql } = await import('kysely'); await sql`analyze`.execute(store.db.kysely).catch(() => {});
    const ext = Array.from({ length: 1000 }, (_, i) => `e5_${i}`); const ph = Array.from({ length: 1000 }, (_, i) => '+1' + (2000005000 + i));
    const [st] = await capture(store, (k) => repo.findExisting(k, kind, A, ext, ph));
    console.log(kind, '\n' + await explain(store, st));
    const t = process.hrtime.bigint();
    for (let i = 0; i < 20; i++) await repo.findExisting(store.db.kysely, kind, A, ext, ph);
    console.log(kind, 'findExisting', (Number(process.hrtime.bigint() - t) / 20 / 1e6).toFixed(2), 'ms');
  } finally { await store.db.close(); await store.drop(); }
}
