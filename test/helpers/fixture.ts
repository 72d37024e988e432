/**
 * An app on a fresh store with two companies, campaigns and a matrix of keys,
 * driven through real HTTP semantics with app.inject. Each test file builds
 * its own, so files never share data.
 */
import type { FastifyInstance } from 'fastify';
import { createKey, revokeKey } from '../../src/auth/service.js';
import { createCampaign, createCompany } from '../../src/campaigns/service.js';
import { type Config, loadConfig, type RateLimitConfig } from '../../src/config.js';
import type { Store } from '../../src/store/index.js';
import { buildApp } from '../../src/http/app.js';
import { MemoryRateLimiter } from '../../src/ratelimit/memory.js';
import type { RateLimiter } from '../../src/ratelimit/types.js';
import { createTestStore, type StoreKind, type TestStore } from './db.js';

export interface Clock {
  now: number;
  advance(ms: number): void;
}

export interface Reply {
  status: number;
  body: any;
  headers: Record<string, string | string[] | number | undefined>;
}

export interface FixtureOptions {
  rateLimit?: Partial<RateLimitConfig>;
  env?: Record<string, string>;
  limiter?: (clock: Clock) => RateLimiter;
}

const GENEROUS: RateLimitConfig = { perMinute: 1e6, perHour: 1e6, bulkPerMinute: 1e6, ipPerMinute: 1e6 };

export async function makeFixture(kind: StoreKind, opts: FixtureOptions = {}) {
  const store: TestStore = await createTestStore(kind);
  const db: Store = await store.open();
  const clock: Clock = {
    now: Date.now(),
    advance(ms) {
      this.now += ms;
    },
  };
  const now = () => clock.now;
  const base = loadConfig({ ...opts.env });
  const config: Config = { ...base, database: store.config, rateLimit: { ...GENEROUS, ...opts.rateLimit } };
  const limiter = opts.limiter ? opts.limiter(clock) : new MemoryRateLimiter({ now });
  const app: FastifyInstance = await buildApp({ config, store: db, limiter, now });

  const { companyId: companyA } = await createCompany(db, 'Company A');
  const { companyId: companyB } = await createCompany(db, 'Company B');
  const { campaignId: campaignA } = await createCampaign(db, { companyId: companyA, name: 'A1' });
  const { campaignId: campaignA2 } = await createCampaign(db, { companyId: companyA, name: 'A2' });
  const { campaignId: prefetchA } = await createCampaign(db, {
    companyId: companyA,
    name: 'A prefetch',
    predial_url: 'http://127.0.0.1:9/predial',
  });
  const { campaignId: campaignB } = await createCampaign(db, { companyId: companyB, name: 'B1' });
  const key = async (companyId: string, scope: 'read' | 'write', campaignId?: string) =>
    (await createKey(db, { companyId, name: `${scope} key`, scope, campaignId })).key;
  const revoked = await createKey(db, { companyId: companyA, name: 'revoked', scope: 'write' });
  await revokeKey(db, revoked.keyId);
  const keys = {
    writeA: await key(companyA, 'write'),
    readA: await key(companyA, 'read'),
    restrictedA: await key(companyA, 'write', campaignA),
    writeB: await key(companyB, 'write'),
    revokedA: revoked.key,
  };

  async function request(
    method: 'GET' | 'POST' | 'DELETE' | 'PUT' | 'PATCH',
    url: string,
    o: { key?: string | null; body?: unknown; query?: Record<string, string>; headers?: Record<string, string> } = {},
  ): Promise<Reply> {
    const headers: Record<string, string> = { ...o.headers };
    const k = o.key === undefined ? keys.writeA : o.key;
    if (k !== null) headers['x-api-key'] = k;
    const res = await app.inject({
      method,
      url,
      query: o.query,
      headers,
      ...(o.body === undefined ? {} : typeof o.body === 'string' ? { payload: o.body } : { payload: o.body as object }),
    });
    let body: unknown;
    try {
      body = res.json();
    } catch {
      body = res.body;
    }
    return { status: res.statusCode, body, headers: res.headers };
  }

  return {
    kind,
    app,
    db,
    store,
    clock,
    config,
    limiter,
    ids: { companyA, companyB, campaignA, campaignA2, prefetchA, campaignB },
    keys,
    request,
    async close() {
      await app.close();
      await limiter.close();
      await db.close();
      await store.drop();
    },
  };
}

export type Fixture = Awaited<ReturnType<typeof makeFixture>>;

/** the envelope shape every response must have */
export function isEnvelope(body: any): boolean {
  return (
    body !== null &&
    typeof body === 'object' &&
    typeof body.success === 'boolean' &&
    'data' in body &&
    'error' in body &&
    (body.success ? body.error === null : typeof body.error === 'string')
  );
}
