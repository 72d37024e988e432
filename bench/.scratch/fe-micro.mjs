import SQLite from 'better-sqlite3';
import { createDb } from '../../dist/db/index.js';
import { createCompany, createCampaign } from '../../dist/campaigns/service.js';
import * as repo from '../../dist/leads/repository.js';
import { rmSync } from 'node:fs';
rmSync('/tmp/prof/fe.db', { force: true });
const db = createDb({ kind: 'sqlite', path: '/tmp/prof/fe.db' });
await db.migrate();
const { companyId } = await createCompany(db, 'x');
const { campaignId: A } = await createCampaign(db, { companyId, name: 'c' });
for (let b = 0; b < 50; b++) {
  const rows = Array.from({ length: 1000 }, (_, i) => ({ id: `x${b}_${i}`, phoneNumber: '+1' + (2000000000 + b * 1000 + i), externalId: `crm-${b * 1000 + i}`, metadata: '{"name":"Lead","company":"Acme"}', scheduledFor: null, priority: 0 }));
  await db.writeTx((tx) => repo.insertMany(tx, 'sqlite', A, rows, Date.now()));
}
await db.close();
const d = new SQLite('/tmp/prof/fe.db');
const ext = JSON.stringify(Array.from({ length: 1000 }, (_, i) => `crm-${20000 + i}`));
const ph = JSON.stringify(Array.from({ length: 1000 }, (_, i) => '+1' + (2000020000 + i)));
const both = JSON.stringify(Array.from({ length: 1000 }, (_, i) => ({ e: `crm-${20000 + i}`, p: '+1' + (2000020000 + i) })));
const V = {
  orIn: [`select external_id, phone_number from leads where campaign_id = ? and (external_id in (select value from json_each(?)) or phone_number in (select value from json_each(?)))`, [A, ext, ph]],
  crossIndexed: [`select l.external_id, l.phone_number from json_each(?) j cross join leads l indexed by leads_campaign_external_id where l.campaign_id = ? and l.external_id = j.value
     union select l.external_id, l.phone_number from json_each(?) j cross join leads l indexed by leads_campaign_phone_number where l.campaign_id = ? and l.phone_number = j.value`, [ext, A, ph, A]],
  crossIndexedAll: [`select l.external_id, l.phone_number from json_each(?) j cross join leads l indexed by leads_campaign_external_id where l.campaign_id = ? and l.external_id = j.value
     union all select l.external_id, l.phone_number from json_each(?) j cross join leads l indexed by leads_campaign_phone_number where l.campaign_id = ? and l.phone_number = j.value`, [ext, A, ph, A]],
  cross: [`select l.external_id, l.phone_number from json_each(?) j cross join leads l where l.campaign_id = ? and l.external_id = j.value
     union select l.external_id, l.phone_number from json_each(?) j cross join leads l where l.campaign_id = ? and l.phone_number = j.value`, [ext, A, ph, A]],
};
const st = Object.fromEntries(Object.entries(V).map(([k, [s, p]]) => [k, [d.prepare(s), p]]));
for (const [k, [s, p]] of Object.entries(st)) console.log(k, s.all(...p).length, d.prepare('explain query plan ' + V[k][0]).all(...p).map((r) => r.detail).join(' | '));
const best = {};
const analyzeAfter = true;
for (let r = 0; r < 8; r++) for (const [k, [s, p]] of Object.entries(st)) { const t = process.hrtime.bigint(); for (let i = 0; i < 10; i++) s.all(...p); best[k] = Math.min(best[k] ?? 1e9, Number(process.hrtime.bigint() - t) / 10 / 1e6); }
console.log(best);
d.exec('analyze');
for (const [k, [s, p]] of Object.entries(st)) console.log('analyzed', k, d.prepare('explain query plan ' + V[k][0]).all(...p).map((r) => r.detail).join(' | '));
const st2 = Object.fromEntries(Object.entries(V).map(([k, [s, p]]) => [k, [d.prepare(s), p]]));
const best2 = {};
for (let r = 0; r < 8; r++) for (const [k, [s, p]] of Object.entries(st2)) { const t = process.hrtime.bigint(); for (let i = 0; i < 10; i++) s.all(...p); best2[k] = Math.min(best2[k] ?? 1e9, Number(process.hrtime.bigint() - t) / 10 / 1e6); }
console.log('analyzed', best2);
