import { buildApp } from '../../dist/http/app.js';
import { loadConfig } from '../../dist/config.js';
import { createDb } from '../../dist/db/index.js';
import { MemoryRateLimiter } from '../../dist/ratelimit/index.js';
import { createCompany, createCampaign } from '../../dist/campaigns/service.js';
import { createKey } from '../../dist/auth/service.js';
import * as repo from '../../dist/leads/repository.js';
import { rmSync } from 'node:fs';
import pino from 'pino';
rmSync('/tmp/prof/inj.db', { force: true });
const config = loadConfig({ DATABASE_URL: 'sqlite:/tmp/prof/inj.db', RATE_LIMIT_PER_MINUTE: '1000000', RATE_LIMIT_PER_HOUR: '1000000' });
const db = createDb(config.database); await db.migrate();
const { companyId } = await createCompany(db, 'x');
const { campaignId } = await createCampaign(db, { companyId, name: 'c' });
const { key } = await createKey(db, { companyId, name: 'k', scope: 'write' });
const rows = Array.from({ length: 1000 }, (_, i) => ({ id: 'ld_' + i, phoneNumber: '+1' + (2000000000 + i), externalId: 'e' + i, metadata: '{"a":1}', scheduledFor: null, priority: 0 }));
await db.writeTx((tx) => repo.insertMany(tx, 'sqlite', campaignId, rows, Date.now()));
const logger = process.argv[2] === 'log' ? pino({ level: 'info' }, pino.destination('/dev/null')) : undefined;
const app = await buildApp({ config, db, limiter: new MemoryRateLimiter(), logger });
await app.ready();
const only = process.argv[3];
const paths0 = { list: `/api/v1/leads?campaignId=${campaignId}&limit=1`, nf: `/api/v1/leads?campaignId=nope&limit=1`, health: '/api/health' };
const paths = only ? { [only]: paths0[only] } : paths0;
for (const [k, url] of Object.entries(paths)) {
  let best = 1e9;
  for (let r = 0; r < 5; r++) {
    const n = 2000; const c0 = process.cpuUsage(); 
    for (let i = 0; i < n; i++) await app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });
    const c = process.cpuUsage(c0); best = Math.min(best, (c.user + c.system) / n);
  }
  console.log(k, best.toFixed(0), 'µs CPU per inject (best of 5 × 2000)');
}
await app.close(); await db.close();
