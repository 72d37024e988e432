/**
 * Several leadline processes sharing one PostgreSQL database and one Redis,
 * as they run behind a load balancer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, revokeKey } from '../../src/auth/service.js';
import { createCampaign, createCompany } from '../../src/campaigns/service.js';
import type { Store } from '../../src/store/index.js';
import { createTestStore, type TestStore } from '../helpers/db.js';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { REDIS_URL, serviceAvailable } from '../helpers/services.js';

const ready = (await serviceAvailable('postgres')) && (await serviceAvailable('redis'));
const PER_MINUTE = 40;

describe.skipIf(!ready)('two instances on one PostgreSQL and one Redis', () => {
  let store: TestStore;
  let db: Store;
  let servers: ServerProcess[] = [];
  let campaignId: string;
  let companyId: string;

  beforeAll(async () => {
    store = await createTestStore('postgres');
    db = await store.open();
    ({ companyId } = await createCompany(db, 'Scale Co'));
    ({ campaignId } = await createCampaign(db, { companyId, name: 'Scale' }));
    const env = {
      DATABASE_URL: store.url,
      REDIS_URL,
      REDIS_KEY_PREFIX: `leadline-test:${process.pid}:${Date.now()}:`,
      RATE_LIMIT_PER_MINUTE: String(PER_MINUTE),
      RATE_LIMIT_PER_HOUR: '100000',
      RATE_LIMIT_BULK_PER_MINUTE: '100000',
      RATE_LIMIT_IP_PER_MINUTE: '100000',
    };
    // Started together: their migrations race on the same (already migrated) schema.
    servers = await Promise.all([startServerProcess(env), startServerProcess(env)]);
  }, 60_000);

  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await db?.close();
    await store?.drop();
  });

  const call = (server: ServerProcess, key: string, path: string, body?: unknown) =>
    fetch(`${server.url}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  it('overlapping bulk creates of the same identifiers make exactly one lead each', async () => {
    const { key } = await createKey(db, { companyId, name: 'bulk', scope: 'write' });
    const leads = Array.from({ length: 1000 }, (_, i) => ({
      externalId: `ext-${i}`,
      phoneNumber: `+1415${String(5000000 + i).padStart(7, '0')}`,
    }));
    // Four overlapping batches (reversed, shifted) fired at both instances at once.
    const batches = [leads, [...leads].reverse(), leads.slice(250).concat(leads.slice(0, 250)), leads.slice(500)];
    const responses = await Promise.all(
      batches.flatMap((batch) => servers.map((s) => call(s, key, '/api/v1/leads/bulk', { campaignId, leads: batch }))),
    );
    const bodies = await Promise.all(responses.map((r) => r.json()));
    expect(responses.map((r) => r.status)).toEqual(responses.map(() => 200));
    const created = bodies.reduce((sum, b) => sum + b.data.created, 0);
    expect(created).toBe(1000);
    const rows = await db.kysely
      .selectFrom('leads')
      .select(({ fn }) => [fn.countAll<number>().as('n'), fn.count<number>('external_id').distinct().as('ext')])
      .where('campaign_id', '=', campaignId)
      .executeTakeFirstOrThrow();
    expect(Number(rows.n)).toBe(1000);
    expect(Number(rows.ext)).toBe(1000);
  });

  it('one key spread over both instances is admitted exactly the limit', async () => {
    const { key } = await createKey(db, { companyId, name: 'limited', scope: 'read' });
    const responses = await Promise.all(
      Array.from({ length: 100 }, (_, i) => call(servers[i % 2]!, key, `/api/v1/leads?campaignId=${campaignId}&limit=1`)),
    );
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(PER_MINUTE);
    expect(statuses.filter((s) => s === 429)).toHaveLength(100 - PER_MINUTE);
    // The headers tell one shared window: the admitted calls, whichever instance
    // answered, counted it down 39, 38, … 0 exactly once each.
    const admitted = responses.filter((r) => r.status === 200);
    expect(admitted.map((r) => r.headers.get('x-ratelimit-limit'))).toEqual(admitted.map(() => String(PER_MINUTE)));
    const remaining = admitted.map((r) => Number(r.headers.get('x-ratelimit-remaining'))).sort((a, b) => a - b);
    expect(remaining).toEqual(Array.from({ length: PER_MINUTE }, (_, i) => i));
    for (const r of responses.filter((r) => r.status === 429)) {
      expect(r.headers.get('x-ratelimit-remaining')).toBe('0');
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(await r.json()).toMatchObject({ success: false, limit: PER_MINUTE, remaining: 0, reset: expect.any(String) });
    }
  });

  it('a key revoked in the shared database fails on the other instance within a second', async () => {
    const { key, keyId } = await createKey(db, { companyId, name: 'revoke me', scope: 'read' });
    const other = servers[1]!;
    expect((await call(other, key, `/api/v1/leads?campaignId=${campaignId}&limit=1`)).status).toBe(200);
    await revokeKey(db, keyId);
    const revokedAt = Date.now();
    let status = 200;
    while (Date.now() - revokedAt < 3000) {
      status = (await call(other, key, `/api/v1/leads?campaignId=${campaignId}&limit=1`)).status;
      if (status === 401) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    expect(status).toBe(401);
    expect(Date.now() - revokedAt).toBeLessThan(1000);
  });
});
