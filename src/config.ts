/**
 * The one place that reads the server's environment (the client commands'
 * LEADLINE_URL and LEADLINE_API_KEY are read in cli/remote.ts). `loadConfig` parses and validates
 * it once; the frozen result is passed down explicitly, never imported, so
 * tests can build as many differently-configured apps as they like.
 */
import type { KeyObject } from 'node:crypto';
import { parseSecretKey, SecretKeyError } from './crypto/secrets.js';
import { type OutboundAllow, OutboundAllowError, parseOutboundAllow } from './net/outbound.js';

export type DatabaseConfig = { readonly kind: 'sqlite'; readonly path: string } | { readonly kind: 'postgres'; readonly url: string };

export interface RateLimitConfig {
  /** non-bulk /api/v1 calls per key per minute */
  readonly perMinute: number;
  /** all /api/v1 calls per key per hour */
  readonly perHour: number;
  /** bulk create + bulk delete per key per minute */
  readonly bulkPerMinute: number;
  /** /api/health, unknown paths and failed authentication, per client IP per minute */
  readonly ipPerMinute: number;
}

/**
 * What the HTTP server allows a connection before it is cut, so slow, stalled
 * or idle clients cannot hold sockets and memory that well-behaved ones need.
 * docs/operations.md explains each figure.
 */
export interface ServerLimits {
  /** whole request head must arrive within this (slow-loris headers) */
  readonly headersTimeoutMs: number;
  /** whole request, head and body, must arrive within this (bodies that never finish) */
  readonly requestTimeoutMs: number;
  /** a socket with no traffic either way for this long is closed (stalled readers and writers) */
  readonly connectionTimeoutMs: number;
  /** an idle keep-alive socket is closed after this */
  readonly keepAliveTimeoutMs: number;
  /** after this many requests a keep-alive socket is told to close (0: no limit) */
  readonly maxRequestsPerSocket: number;
  /** largest request head (request line + headers), bytes; larger is a 431 */
  readonly maxHeaderSize: number;
  /** open sockets beyond this are closed on accept, so file descriptors never run out (0: no cap) */
  readonly maxConnections: number;
}

export interface Config {
  readonly host: string;
  readonly port: number;
  readonly database: DatabaseConfig;
  readonly redisUrl: string | undefined;
  /** namespace of the rate-limit keys, so deployments can share one Redis */
  readonly redisKeyPrefix: string;
  readonly rateLimit: RateLimitConfig;
  /** largest accepted request body, bytes */
  readonly bodyLimit: number;
  readonly logLevel: string;
  /** how long an authenticated key is trusted without asking the database again */
  readonly keyCacheMs: number;
  /** active API keys a company may hold: each has its own rate budget */
  readonly maxKeysPerCompany: number;
  readonly pgPoolSize: number;
  readonly pgStatementTimeoutMs: number;
  /** DATABASE_LISTEN_URL: where the dialer LISTENs when DATABASE_URL goes through PgBouncer (?pgbouncer=true) */
  readonly pgListenUrl: string | undefined;
  /** Fastify trustProxy: off unless configured, because per-IP limits trust X-Forwarded-For only behind a known proxy */
  readonly trustProxy: boolean | string;
  readonly server: ServerLimits;
  /** OUTBOUND_ALLOW: internal destinations outbound requests may reach (src/net/outbound.ts) */
  readonly outboundAllow: OutboundAllow;
  /** SECRET_KEY: seals stored secrets (src/crypto/secrets.ts); undefined keeps them as given */
  readonly secretKey: KeyObject | undefined;
  /** EVENT_RETENTION: events and webhook tries older than this are pruned (docs/events.md) */
  readonly eventRetentionMs: number;
  /** PUBLIC_URL: where the AI voice platforms reach `leadline serve` (their per-call callback URLs, docs/providers.md) */
  readonly publicUrl: string | undefined;
}

export class ConfigError extends Error {}

type Env = Readonly<Record<string, string | undefined>>;

function int(env: Env, name: string, fallback: number, min = 0): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min) throw new ConfigError(`${name} must be at least ${min}, got ${value}`);
  return value;
}

/** @public bench/ imports it from dist/, where knip cannot follow */
export function parseDatabaseUrl(url: string | undefined): DatabaseConfig {
  if (url === undefined || url.trim() === '') return { kind: 'sqlite', path: './data/leadline.db' };
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) return { kind: 'postgres', url };
  if (url.startsWith('sqlite:')) {
    const path = url.slice('sqlite:'.length).replace(/^\/\//, '');
    if (path === '') throw new ConfigError('DATABASE_URL sqlite:PATH needs a path');
    return { kind: 'sqlite', path };
  }
  throw new ConfigError(`DATABASE_URL must start with postgres://, postgresql:// or sqlite:, got "${url}"`);
}

const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** a duration such as `30d`, `12h` or `90m` */
function duration(env: Env, name: string, fallback: string): number {
  const raw = env[name]?.trim() || fallback;
  const m = /^([1-9][0-9]{0,5})([mhd])$/.exec(raw);
  if (!m) throw new ConfigError(`${name} must be a whole number of minutes, hours or days such as 30d, 12h or 90m, got "${raw}"`);
  return Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS];
}

function listenUrl(raw: string | undefined): string | undefined {
  const url = raw?.trim();
  if (!url) return undefined;
  if (parseDatabaseUrl(url).kind !== 'postgres') throw new ConfigError('DATABASE_LISTEN_URL must be a postgres:// URL');
  return url;
}

function trustProxy(raw: string | undefined): boolean | string {
  if (raw === undefined || raw === '' || raw === 'false') return false;
  if (raw === 'true') return true;
  // A hop count cannot tell the proxy from a client that forges X-Forwarded-For
  // (Fastify trusts nobody given one), and "1" would be read as the address 0.0.0.1.
  if (/^\d+$/.test(raw)) throw new ConfigError(`TRUST_PROXY must list the proxy addresses or CIDRs, not a hop count, got "${raw}"`);
  return raw; // comma-separated addresses or CIDRs, as Fastify accepts
}

/** an origin and optional path prefix: the callback URLs are built under it, so no query or fragment */
function publicUrl(raw: string | undefined): string | undefined {
  const value = raw?.trim();
  if (!value) return undefined;
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    // reported below
  }
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:') || url.search || url.hash || url.username || url.password) {
    throw new ConfigError(
      `PUBLIC_URL must be an http(s) URL such as https://leadline.example.com, without query or credentials, got "${raw}"`,
    );
  }
  return value.replace(/\/+$/, '');
}

/** a parser whose own errors become ConfigErrors, with their message */
function parsed<T>(parse: () => T, own: new (...args: never[]) => Error): T {
  try {
    return parse();
  } catch (err) {
    if (err instanceof own) throw new ConfigError(err.message);
    throw err;
  }
}

function serverLimits(env: Env): ServerLimits {
  const limits = {
    headersTimeoutMs: int(env, 'HEADERS_TIMEOUT_MS', 10_000, 1),
    requestTimeoutMs: int(env, 'REQUEST_TIMEOUT_MS', 30_000, 1),
    connectionTimeoutMs: int(env, 'CONNECTION_TIMEOUT_MS', 60_000, 1),
    keepAliveTimeoutMs: int(env, 'KEEP_ALIVE_TIMEOUT_MS', 72_000, 1),
    // Off by default: a client pipelining past the limit gets bare 503s from Node (docs/operations.md).
    maxRequestsPerSocket: int(env, 'MAX_REQUESTS_PER_SOCKET', 0),
    maxHeaderSize: int(env, 'MAX_HEADER_SIZE_BYTES', 16 * 1024, 1024),
    maxConnections: int(env, 'MAX_CONNECTIONS', 10_000),
  };
  // Node refuses a head deadline later than the whole request's.
  if (limits.headersTimeoutMs > limits.requestTimeoutMs) {
    throw new ConfigError(
      `HEADERS_TIMEOUT_MS (${limits.headersTimeoutMs}) must not exceed REQUEST_TIMEOUT_MS (${limits.requestTimeoutMs})`,
    );
  }
  return Object.freeze(limits);
}

export function loadConfig(env: Env = process.env): Config {
  return Object.freeze({
    host: env.HOST?.trim() || '0.0.0.0',
    port: int(env, 'PORT', 3000),
    database: parseDatabaseUrl(env.DATABASE_URL),
    redisUrl: env.REDIS_URL?.trim() || undefined,
    redisKeyPrefix: env.REDIS_KEY_PREFIX?.trim() || 'leadline:rl:',
    rateLimit: Object.freeze({
      perMinute: int(env, 'RATE_LIMIT_PER_MINUTE', 100),
      perHour: int(env, 'RATE_LIMIT_PER_HOUR', 1000),
      bulkPerMinute: int(env, 'RATE_LIMIT_BULK_PER_MINUTE', 10),
      ipPerMinute: int(env, 'RATE_LIMIT_IP_PER_MINUTE', 60),
    }),
    bodyLimit: int(env, 'BODY_LIMIT_BYTES', 4 * 1024 * 1024, 1024),
    logLevel: env.LOG_LEVEL?.trim() || 'info',
    keyCacheMs: int(env, 'KEY_CACHE_MS', 500),
    maxKeysPerCompany: int(env, 'MAX_KEYS_PER_COMPANY', 50, 1),
    pgPoolSize: int(env, 'PG_POOL_SIZE', 10, 1),
    pgStatementTimeoutMs: int(env, 'PG_STATEMENT_TIMEOUT_MS', 5000),
    pgListenUrl: listenUrl(env.DATABASE_LISTEN_URL),
    trustProxy: trustProxy(env.TRUST_PROXY?.trim()),
    server: serverLimits(env),
    outboundAllow: parsed(() => parseOutboundAllow(env.OUTBOUND_ALLOW), OutboundAllowError),
    secretKey: parsed(() => parseSecretKey(env.SECRET_KEY), SecretKeyError),
    eventRetentionMs: duration(env, 'EVENT_RETENTION', '30d'),
    publicUrl: publicUrl(env.PUBLIC_URL),
  });
}
