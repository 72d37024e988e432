import { createDb } from '/work/main/dist/db/index.js';
import { createCompany, createCampaign } from '/work/main/dist/campaigns/service.js';
import * as repo from '/work/main/dist/leads/repository.js';
import { rmSync } from 'node:fs';
rmSync('/tmp/prof/m.db*', { force: true });
const db = createDb({ kind: 'sqlite', path: '/tmp/prof/m.db' });
await db.migrate();
const { companyId } = await createCompany(db, 'x');
const { campaignId } = await createCampaign(db, { companyId, name: 'c' });
const rows = Array.from({ length: 5000 }, (_, i) => ({ id: 'ld_' + i, phoneNumber: '+1' + (2000000000 + i), externalId: 'e' + i, metadata: '{"a":1}', scheduledFor: null, priority: 0 }));
await db.writeTx((tx) => repo.insertMany(tx, 'sqlite', campaignId, rows, Date.now()));
async function time(label, n, fn) {
  for (let i = 0; i < 200; i++) await fn(i);
  const t = process.hrtime.bigint();
  for (let i = 0; i < n; i++) await fn(i + 1000);
  console.log(label, (Number(process.hrtime.bigint() - t) / n / 1000).toFixed(1), 'µs');
}
await time('listPage limit1', 5000, () => repo.listPage(db.kysely, 'sqlite', campaignId, undefined, 0, 1));

await time('campaign select', 5000, () => db.kysely.selectFrom('campaigns').selectAll().where('id', '=', campaignId).executeTakeFirst());
let k = 100000;
await time('insertOne', 5000, () => repo.insertOne(db.kysely, campaignId, { id: 'n' + k++, phoneNumber: '+1' + (5000000000 + k), externalId: null, metadata: '{}', scheduledFor: null, priority: 0 }, Date.now()));
const raw = db.kysely; 
import SQLite from 'better-sqlite3';
const d = new SQLite('/tmp/prof/m.db');
const q = repo.listPage.toString();
const { sql } = await import('kysely');
const compiled = sql`select 1`.compile(db.kysely);
// get the listPage SQL text through a logging kysely
import { Kysely, SqliteDialect } from 'kysely';
let text;
const k2 = new Kysely({ dialect: new SqliteDialect({ database: d }), log: (e) => { text = e.query.sql; } });
await repo.listPage(k2, 'sqlite', campaignId, undefined, 0, 1);
const listSql = text;
