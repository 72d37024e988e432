/**
 * The one place that reads the server's environment (the client commands'
 * LEADLINE_URL and LEADLINE_API_KEY are read in cli/remote.ts). `loadConfig` parses and validates
 * it once; the frozen result is passed down explicitly, never imported, so
 * tests can build as many differently-configured apps as they like.
 */
import type { KeyObject } from 'node:crypto';
import ipaddr from 'ipaddr.js';
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
  /** on SIGTERM, how long requests still in flight may keep their connections before they are cut */
  readonly shutdownGraceMs: number;
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

/** Node's timers fire at once for a delay past this (2^31-1 ms, about 24.8 days) */
const MAX_TIMER_MS = 2 ** 31 - 1;

function int(env: Env, name: string, fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min) throw new ConfigError(`${name} must be at least ${min}, got ${value}`);
  // Past 2^53 a number is no longer exact, and the limiter refuses it on every request.
  if (!Number.isSafeInteger(value) || value > max) throw new ConfigError(`${name} must be at most ${max}, got ${raw.trim()}`);
  return value;
}

/** A URL fit for an error message (tickets, logs): user, password and query values (libpq's ?password=) as ***. */
function shown(raw: string): string {
  const scheme = /^([a-z][a-z0-9+.-]*:)\/\//i.exec(raw)?.[1];
  // without `//` there is no host, and `user:pass@host` would parse as a scheme and a path
  if (!scheme) return 'a value that is not a URL';
  const url = tryUrl(raw);
  if (!url) return `${scheme}//… (not a valid URL)`;
  if (url.username || url.password) {
    url.username = '***';
    url.password = '';
  }
  for (const key of new Set(url.searchParams.keys())) url.searchParams.set(key, '***');
  return url.href;
}

const tryUrl = (value: string): URL | undefined => (URL.canParse(value) ? new URL(value) : undefined);

/** the spellings of ?pgbouncer= read as yes and no; anything else is refused rather than read as no */
const FLAG: Readonly<Record<string, 'true' | 'false'>> = { true: 'true', yes: 'true', 1: 'true', false: 'false', no: 'false', 0: 'false' };

/** A postgres:// URL that parses (pg would fail later with a bare "Invalid URL"), with
 * `?pgbouncer=` rewritten to `true` or `false`, the two values src/db/postgres.ts reads. */
function postgresUrl(name: string, raw: string): string {
  const url = tryUrl(raw);
  if (!url) {
    throw new ConfigError(
      `${name} is not a valid URL (${shown(raw)}): check the host and port; percent-encode special characters in the password`,
    );
  }
  const pgbouncer = url.searchParams.get('pgbouncer');
  if (pgbouncer === null) return raw;
  const flag = FLAG[pgbouncer.trim().toLowerCase()];
  if (!flag) throw new ConfigError(`${name}: ?pgbouncer= must be true or false (or yes/no, 1/0), got "${pgbouncer}"`);
  if (flag === pgbouncer) return raw;
  url.searchParams.set('pgbouncer', flag);
  return url.href;
}

const POSTGRES = /^postgres(ql)?:\/\//i;

/** @public bench/ imports it from dist/, where knip cannot follow */
export function parseDatabaseUrl(url: string | undefined): DatabaseConfig {
  const raw = url?.trim() ?? '';
  if (raw === '') return { kind: 'sqlite', path: './data/leadline.db' };
  if (POSTGRES.test(raw)) return { kind: 'postgres', url: postgresUrl('DATABASE_URL', raw) };
  if (raw.startsWith('sqlite:')) {
    const path = raw.slice('sqlite:'.length).replace(/^\/\//, '');
    if (path === '') throw new ConfigError('DATABASE_URL sqlite:PATH needs a path');
    return { kind: 'sqlite', path };
  }
  throw new ConfigError(`DATABASE_URL must start with postgres://, postgresql:// or sqlite:, got "${shown(raw)}"`);
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
  if (!POSTGRES.test(url)) throw new ConfigError(`DATABASE_LISTEN_URL must be a postgres:// URL, got "${shown(url)}"`);
  return postgresUrl('DATABASE_LISTEN_URL', url);
}

/** ioredis reads any other string as a socket path, and the limiter would then fall back to per-instance windows for good */
function redisUrl(raw: string | undefined): string | undefined {
  const value = raw?.trim();
  if (!value) return undefined;
  const protocol = tryUrl(value)?.protocol;
  if (protocol !== 'redis:' && protocol !== 'rediss:') {
    throw new ConfigError(`REDIS_URL must be a redis:// or rediss:// URL such as redis://127.0.0.1:6379, got "${shown(value)}"`);
  }
  return value;
}

/** pino's levels (pino.levels.values) and `silent`; listed here so that every CLI command need not load pino to check them */
const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'];

function logLevel(raw: string | undefined): string {
  const level = raw?.trim() || 'info';
  if (!LOG_LEVELS.includes(level)) throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${level}"`);
  return level;
}

function trustProxy(raw: string | undefined): boolean | string {
  if (raw === undefined || raw === '' || raw === 'false') return false;
  if (raw === 'true') return true;
  // A hop count cannot tell the proxy from a client that forges X-Forwarded-For
  // (Fastify trusts nobody given one), and "1" would be read as the address 0.0.0.1.
  if (/^\d+$/.test(raw)) throw new ConfigError(`TRUST_PROXY must list the proxy addresses or CIDRs, not a hop count, got "${raw}"`);
  // Checked here as @fastify/proxy-addr reads them, so that a typo is a configuration error naming the variable.
  const bad = raw.split(',').find((entry) => !trustedRange(entry.trim()));
  if (bad !== undefined) {
    throw new ConfigError(
      `TRUST_PROXY: "${bad.trim()}" is not an IP address, a CIDR (10.0.0.0/8) or one of loopback, linklocal, uniquelocal`,
    );
  }
  return raw; // comma-separated addresses or CIDRs, as Fastify accepts
}

/** an address, address/bits, IPv4 address/netmask, or a range name @fastify/proxy-addr knows */
function trustedRange(entry: string): boolean {
  if (entry === 'loopback' || entry === 'linklocal' || entry === 'uniquelocal') return true;
  const slash = entry.lastIndexOf('/');
  const address = slash === -1 ? entry : entry.slice(0, slash);
  if (!ipaddr.isValid(address)) return false;
  if (slash === -1) return true;
  const range = entry.slice(slash + 1);
  const kind = ipaddr.parse(address).kind();
  if (/^\d+$/.test(range)) return Number(range) >= 1 && Number(range) <= (kind === 'ipv6' ? 128 : 32);
  if (kind !== 'ipv4' || !ipaddr.IPv4.isValid(range)) return false;
  // a netmask: contiguous ones, at least one (proxy-addr refuses /0)
  return (ipaddr.IPv4.parse(range).prefixLengthFromSubnetMask() ?? 0) >= 1;
}

/** an origin and optional path prefix: the callback URLs are built under it, so no query or fragment */
function publicUrl(raw: string | undefined): string | undefined {
  const value = raw?.trim();
  if (!value) return undefined;
  const url = tryUrl(value);
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:') || url.search || url.hash || url.username || url.password) {
    throw new ConfigError(
      `PUBLIC_URL must be an http(s) URL such as https://leadline.example.com, without query or credentials, got "${shown(value)}"`,
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
    headersTimeoutMs: int(env, 'HEADERS_TIMEOUT_MS', 10_000, 1, MAX_TIMER_MS),
    requestTimeoutMs: int(env, 'REQUEST_TIMEOUT_MS', 30_000, 1, MAX_TIMER_MS),
    connectionTimeoutMs: int(env, 'CONNECTION_TIMEOUT_MS', 60_000, 1, MAX_TIMER_MS),
    keepAliveTimeoutMs: int(env, 'KEEP_ALIVE_TIMEOUT_MS', 72_000, 1, MAX_TIMER_MS),
    // Off by default: a client pipelining past the limit gets bare 503s from Node (docs/operations.md).
    maxRequestsPerSocket: int(env, 'MAX_REQUESTS_PER_SOCKET', 0),
    maxHeaderSize: int(env, 'MAX_HEADER_SIZE_BYTES', 16 * 1024, 1024),
    maxConnections: int(env, 'MAX_CONNECTIONS', 10_000),
    shutdownGraceMs: int(env, 'SHUTDOWN_GRACE_MS', 5000, 0, MAX_TIMER_MS),
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
    // Loopback unless asked: the first start prints a write key and a one-time dashboard password,
    // which must not be usable from the network by someone who only followed the README.
    host: env.HOST?.trim() || '127.0.0.1',
    port: int(env, 'PORT', 3000, 0, 65535),
    database: parseDatabaseUrl(env.DATABASE_URL),
    redisUrl: redisUrl(env.REDIS_URL),
    redisKeyPrefix: env.REDIS_KEY_PREFIX?.trim() || 'leadline:rl:',
    rateLimit: Object.freeze({
      // at least 1: at 0 every call is a 429 that no retry gets past, and 0 reads as "no limit"
      perMinute: int(env, 'RATE_LIMIT_PER_MINUTE', 100, 1),
      perHour: int(env, 'RATE_LIMIT_PER_HOUR', 1000, 1),
      bulkPerMinute: int(env, 'RATE_LIMIT_BULK_PER_MINUTE', 10, 1),
      ipPerMinute: int(env, 'RATE_LIMIT_IP_PER_MINUTE', 60, 1),
    }),
    bodyLimit: int(env, 'BODY_LIMIT_BYTES', 4 * 1024 * 1024, 1024),
    logLevel: logLevel(env.LOG_LEVEL),
    keyCacheMs: int(env, 'KEY_CACHE_MS', 500),
    maxKeysPerCompany: int(env, 'MAX_KEYS_PER_COMPANY', 50, 1),
    pgPoolSize: int(env, 'PG_POOL_SIZE', 10, 1),
    // At least 1: pg sends no statement_timeout for 0, but the client-side read bound (this + 1 s,
    // itself a Node timer) would still cut every statement at 1 s.
    pgStatementTimeoutMs: int(env, 'PG_STATEMENT_TIMEOUT_MS', 5000, 1, MAX_TIMER_MS - 1000),
    pgListenUrl: listenUrl(env.DATABASE_LISTEN_URL),
    trustProxy: trustProxy(env.TRUST_PROXY?.trim()),
    server: serverLimits(env),
    outboundAllow: parsed(() => parseOutboundAllow(env.OUTBOUND_ALLOW), OutboundAllowError),
    secretKey: parsed(() => parseSecretKey(env.SECRET_KEY), SecretKeyError),
    eventRetentionMs: duration(env, 'EVENT_RETENTION', '30d'),
    publicUrl: publicUrl(env.PUBLIC_URL),
  });
}
