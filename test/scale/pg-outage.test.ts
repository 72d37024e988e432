/**
 * PostgreSQL going away while serving: requests fail fast with a 503
 * envelope, /api/health says so, and service comes back by itself.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createKey } from '../../src/auth/service.js';
import { createCampaign, createCompany } from '../../src/campaigns/service.js';
import { loadConfig } from '../../src/config.js';
import { openStore, type Store } from '../../src/store/index.js';
import { buildApp } from '../../src/http/app.js';
import { MemoryRateLimiter } from '../../src/ratelimit/memory.js';
import { createTestStore, type TestStore } from '../helpers/db.js';
import { serviceAvailable } from '../helpers/services.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

const ready = await serviceAvailable('postgres');

describe.skipIf(!ready)('PostgreSQL outage while serving', () => {
  let store: TestStore;
  let proxy: TcpProxy;
  let db: Store;
  let app: FastifyInstance;
  let key: string;
  let campaignId: string;

  beforeAll(async () => {
    store = await createTestStore('postgres');
    const setup = await store.open();
    const { companyId } = await createCompany(setup, 'Outage Co');
    ({ campaignId } = await createCampaign(setup, { companyId, name: 'c' }));
    ({ key } = await createKey(setup, { companyId, name: 'k', scope: 'write' }));
    await setup.close();
    const url = new URL(store.url);
    proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port) });
    url.port = String(proxy.port);
    db = openStore({ kind: 'postgres', url: url.toString() }, { pgPoolSize: 4 });
    // KEY_CACHE_MS=0: every request authenticates against the database.
    const config = loadConfig({ KEY_CACHE_MS: '0', RATE_LIMIT_IP_PER_MINUTE: '100000' });
    app = await buildApp({ config, store: db, limiter: new MemoryRateLimiter() });
  });

  afterAll(async () => {
    await app?.close();
    await db?.close();
    await proxy?.close();
    await store?.drop();
  });

  const create = (phone: string) =>
    app.inject({
      method: 'POST',
      url: '/api/v1/leads',
      headers: { 'x-api-key': key },
      payload: { campaignId, phoneNumber: phone },
    });

  it('answers 503 fast while the database is gone, and recovers without a restart', async () => {
    expect((await create('+14155550001')).statusCode).toBe(201);

    await proxy.down();
    for (const phone of ['+14155550002', '+14155550003']) {
      const started = Date.now();
      const res = await create(phone);
      expect(res.statusCode).toBe(503);
      expect(res.json()).toEqual({ success: false, data: null, error: 'Service temporarily unavailable' });
      expect(Date.now() - started).toBeLessThan(3000);
    }
    const health = await app.inject({ method: 'GET', url: '/api/health' });
    expect(health.statusCode).toBe(503);
    expect(health.json().data).toEqual({ status: 'unavailable', database: 'unreachable' });

    await proxy.up();
    let status = 0;
    for (let i = 0; i < 50 && status !== 201; i++) {
      status = (await create('+14155550004')).statusCode;
      if (status !== 201) await new Promise((r) => setTimeout(r, 100));
    }
    expect(status).toBe(201);
    expect((await app.inject({ method: 'GET', url: '/api/health' })).statusCode).toBe(200);
    const list = await app.inject({
      method: 'GET',
      url: `/api/v1/leads?campaignId=${campaignId}`,
      headers: { 'x-api-key': key },
    });
    expect(list.json().data.leads.map((l: { phoneNumber: string }) => l.phoneNumber)).toEqual(['+14155550001', '+14155550004']);
  });
});
