import { createDb } from '../../dist/db/index.js';
import { createCompany, createCampaign } from '../../dist/campaigns/service.js';
import * as repo from '../../dist/leads/repository.js';
import { rmSync } from 'node:fs';
rmSync('/tmp/prof/lp.db', { force: true });
const db = createDb({ kind: 'sqlite', path: '/tmp/prof/lp.db' });
await db.migrate();
const { companyId } = await createCompany(db, 'x');
const { campaignId } = await createCampaign(db, { companyId, name: 'c' });
const rows = Array.from({ length: 1000 }, (_, i) => ({ id: 'ld_' + i, phoneNumber: '+1' + (2000000000 + i), externalId: 'e' + i, metadata: '{"a":1}', scheduledFor: null, priority: 0 }));
await db.writeTx((tx) => repo.insertMany(tx, 'sqlite', campaignId, rows, Date.now()));
const best = {};
const fns = {
  listPage: () => repo.listPage(db.kysely, 'sqlite', campaignId, undefined, 0, 1),
  campaignSelect: () => db.kysely.selectFrom('campaigns').selectAll().where('id', '=', campaignId).executeTakeFirst(),
  select1: () => db.ping(),
};
for (let r = 0; r < 10; r++) for (const [k, fn] of Object.entries(fns)) {
  const n = 2000; const t = process.hrtime.bigint();
  for (let i = 0; i < n; i++) await fn();
  best[k] = Math.min(best[k] ?? 1e9, Number(process.hrtime.bigint() - t) / n / 1000);
}
console.log(Object.fromEntries(Object.entries(best).map(([k, v]) => [k, v.toFixed(1) + ' µs'])));
