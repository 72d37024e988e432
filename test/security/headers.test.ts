/**
 * The headers a careful API sends (helmet's, with a policy tighter than its
 * default and nothing that breaks a plain-HTTP deployment), and X-Forwarded-For trusted only from a configured
 * proxy, since the per-IP limits depend on the client address.
 */
import helmet from '@fastify/helmet';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { HELMET_OPTIONS } from '../../src/http/hardening.js';
import { type Fixture, makeFixture, type Reply } from '../helpers/fixture.js';

function expectCarefulHeaders(res: Reply, where: string): void {
  const h = res.headers;
  expect(h['x-content-type-options'], where).toBe('nosniff');
  expect(h['x-frame-options'], where).toBe('DENY');
  expect(h['strict-transport-security'], where).toMatch(/max-age=\d+/);
  expect(h['referrer-policy'], where).toBe('no-referrer');
  expect(h['cross-origin-resource-policy'], where).toBe('same-origin');
  expect(h['content-security-policy'], where).toMatch(/default-src 'none'/);
  expect(h['content-security-policy'], where).toMatch(/frame-ancestors 'none'/);
  // would send a plain-HTTP deployment's own pages (/docs) to https and break them
  expect(h['content-security-policy'], where).not.toMatch(/upgrade-insecure-requests/);
  expect(h['x-powered-by'], where).toBeUndefined();
  expect(h['x-xss-protection'], where).toBe('0');
}

describe('response headers', () => {
  let f: Fixture;
  beforeAll(async () => {
    f = await makeFixture('sqlite', { rateLimit: { perMinute: 1 } });
  });
  afterAll(() => f?.close());

  it('are on successes, every kind of error, unknown paths and the health check', async () => {
    const { campaignA } = f.ids;
    const cases: [string, Promise<Reply>][] = [
      ['201', f.request('POST', '/api/v1/leads', { body: { campaignId: campaignA, phoneNumber: '+14155550901' } })],
      ['401', f.request('GET', '/api/v1/records', { key: null, query: { campaignId: campaignA } })],
      ['400', f.request('POST', '/api/v1/leads/bulk', { key: f.keys.writeB, body: '{', headers: { 'content-type': 'application/json' } })],
      ['404', f.request('GET', '/api/v1/nowhere')],
      ['health', f.request('GET', '/api/health', { key: null })],
    ];
    for (const [where, pending] of cases) expectCarefulHeaders(await pending, where);
    // refused before any hook runs: the two headers that matter for a JSON error body
    const badUrl = await f.request('GET', '/api/v1/leads/%FF');
    expect(badUrl.headers['x-content-type-options']).toBe('nosniff');
    expect(badUrl.headers['content-security-policy']).toBe("default-src 'none'; frame-ancestors 'none'");
    const limited = await f.request('GET', '/api/v1/leads', { query: { campaignId: campaignA } });
    expect(limited.status).toBe(429);
    expectCarefulHeaders(limited, '429');
  });
});

describe('helmet headers, computed once at startup', () => {
  it('are exactly what @fastify/helmet sets with the same options, spelled and ordered as it does', async () => {
    const reference = Fastify({ logger: false });
    await reference.register(helmet, HELMET_OPTIONS);
    reference.get('/', (_request, reply) => reply.send('x'));
    const want = (await reference.inject({ method: 'GET', url: '/' })).raw.res as unknown as {
      getRawHeaderNames(): string[];
      getHeader(n: string): unknown;
    };
    const helmetNames = want.getRawHeaderNames().filter((n) => !/^(content-type|content-length)$/i.test(n));
    await reference.close();
    expect(helmetNames.length).toBeGreaterThan(10);
    const f = await makeFixture('sqlite');
    try {
      const res = await f.app.inject({
        method: 'GET',
        url: '/api/v1/leads',
        query: { campaignId: f.ids.campaignA },
        headers: { 'x-api-key': f.keys.writeA },
      });
      const got = res.raw.res as unknown as { getRawHeaderNames(): string[]; getHeader(n: string): unknown };
      expect(res.statusCode).toBe(200);
      expect(got.getRawHeaderNames().slice(0, helmetNames.length)).toEqual(helmetNames);
      for (const name of helmetNames) expect(got.getHeader(name), name).toEqual(want.getHeader(name));
    } finally {
      await f.close();
    }
  });
});

describe('client address and trustProxy', () => {
  const IP_LIMIT = 5;
  const failures = async (f: Fixture, forwardedFor: (i: number) => string, remoteAddress = '127.0.0.1') => {
    const statuses: number[] = [];
    for (let i = 0; i < IP_LIMIT + 3; i++) {
      const res = await f.app.inject({
        method: 'GET',
        url: '/api/v1/leads',
        remoteAddress,
        headers: { 'x-api-key': 'nonsense', 'x-forwarded-for': forwardedFor(i) },
      });
      statuses.push(res.statusCode);
    }
    return statuses;
  };

  it('off by default: a forged X-Forwarded-For cannot escape the per-IP budget for failed authentication', async () => {
    const f = await makeFixture('sqlite', { rateLimit: { ipPerMinute: IP_LIMIT } });
    try {
      const statuses = await failures(f, (i) => `203.0.113.${i + 1}`);
      expect(statuses.slice(0, IP_LIMIT).every((s) => s === 401)).toBe(true);
      expect(statuses.slice(IP_LIMIT).every((s) => s === 429)).toBe(true);
    } finally {
      await f.close();
    }
  });

  it('with TRUST_PROXY set to the proxy address, clients behind it are told apart; from anywhere else it is ignored', async () => {
    const f = await makeFixture('sqlite', { rateLimit: { ipPerMinute: IP_LIMIT }, env: { TRUST_PROXY: '10.0.0.1' } });
    try {
      expect((await failures(f, (i) => `203.0.113.${i + 1}`, '10.0.0.1')).every((s) => s === 401)).toBe(true);
      const direct = await failures(f, (i) => `198.51.100.${i + 1}`, '192.0.2.7');
      expect(direct.slice(IP_LIMIT).every((s) => s === 429)).toBe(true);
    } finally {
      await f.close();
    }
  });

  it('configuration: off unless set; a bare hop count is refused rather than misread', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.1, 10.0.0.2' }).trustProxy).toBe('10.0.0.1, 10.0.0.2');
    expect(loadConfig({ TRUST_PROXY: 'true' }).trustProxy).toBe(true);
    expect(() => loadConfig({ TRUST_PROXY: '1' })).toThrow(ConfigError);
  });
});

describe('server limits configuration', () => {
  it('has sane defaults', () => {
    expect(loadConfig({}).server).toEqual({
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      connectionTimeoutMs: 60_000,
      keepAliveTimeoutMs: 72_000,
      maxRequestsPerSocket: 0,
      maxHeaderSize: 16_384,
      maxConnections: 10_000,
      shutdownGraceMs: 5000,
    });
  });

  it('reads every figure from the environment and refuses what Node would', () => {
    const server = loadConfig({
      HEADERS_TIMEOUT_MS: '1000',
      REQUEST_TIMEOUT_MS: '2000',
      CONNECTION_TIMEOUT_MS: '3000',
      KEEP_ALIVE_TIMEOUT_MS: '4000',
      MAX_REQUESTS_PER_SOCKET: '100',
      MAX_HEADER_SIZE_BYTES: '8192',
      MAX_CONNECTIONS: '50',
      SHUTDOWN_GRACE_MS: '500',
    }).server;
    expect(server).toEqual({
      headersTimeoutMs: 1000,
      requestTimeoutMs: 2000,
      connectionTimeoutMs: 3000,
      keepAliveTimeoutMs: 4000,
      maxRequestsPerSocket: 100,
      maxHeaderSize: 8192,
      maxConnections: 50,
      shutdownGraceMs: 500,
    });
    expect(() => loadConfig({ HEADERS_TIMEOUT_MS: '5000', REQUEST_TIMEOUT_MS: '4000' })).toThrow(ConfigError);
    expect(() => loadConfig({ REQUEST_TIMEOUT_MS: '0' })).toThrow(ConfigError);
    expect(() => loadConfig({ MAX_HEADER_SIZE_BYTES: '100' })).toThrow(ConfigError);
    expect(() => loadConfig({ MAX_CONNECTIONS: 'lots' })).toThrow(ConfigError);
  });
});
