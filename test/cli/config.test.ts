/**
 * README, "Configuration": "a bad value stops the process with a message
 * naming the variable"; "Exit codes: ... 2 bad usage or configuration". The
 * parser (src/config.ts) directly, and the built CLI as a process.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { poolerOptions } from '../../src/db/postgres.js';
import { BIN, freePort } from '../helpers/server-process.js';

const dir = mkdtempSync(join(tmpdir(), 'leadline-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const db = (name: string) => `sqlite:${join(dir, name)}`;

function cli(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env: { ...process.env, ...env } }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/**
 * `leadline serve` with env, until it exits by itself or answers /api/health
 * (then it is stopped): code is null when it was listening.
 */
async function tryServe(
  env: Record<string, string>,
  waitMs = 15_000,
): Promise<{ code: number | null; health: number | null; output: string }> {
  const port = env.PORT ?? String(await freePort());
  const child = spawn(process.execPath, [BIN, 'serve'], {
    env: { ...process.env, LOG_LEVEL: 'warn', HOST: '127.0.0.1', PORT: port, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<number>((resolve) => child.once('exit', (code) => resolve(code ?? -1)));
  let code: number | null = null;
  let health: number | null = null;
  void exited.then((c) => (code = c));
  const deadline = Date.now() + waitMs;
  while (code === null && health === null && Date.now() < deadline) {
    try {
      health = (await fetch(`http://127.0.0.1:${port}/api/health`)).status;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  if (code !== null) return { code, health, output };
  child.kill('SIGKILL');
  await exited;
  return { code: null, health, output };
}

const refused = (env: Record<string, string>, name: string | RegExp) => {
  expect(() => loadConfig(env)).toThrow(ConfigError);
  expect(() => loadConfig(env)).toThrow(name);
};

describe('the parser', () => {
  it('listens on loopback unless HOST says otherwise (the first start prints a write key and a password)', () => {
    expect(loadConfig({}).host).toBe('127.0.0.1');
    expect(loadConfig({ HOST: '0.0.0.0' }).host).toBe('0.0.0.0');
  });

  it('bounds integers: PORT to 0-65535, timeouts to what Node timers hold, everything to exact (safe) integers', () => {
    expect(loadConfig({ PORT: '0' }).port).toBe(0);
    expect(loadConfig({ PORT: '65535' }).port).toBe(65535);
    refused({ PORT: '65536' }, /^PORT must be at most 65535/);
    refused({ RATE_LIMIT_PER_MINUTE: '9007199254740993' }, 'RATE_LIMIT_PER_MINUTE');
    refused({ REQUEST_TIMEOUT_MS: String(2 ** 31) }, 'REQUEST_TIMEOUT_MS');
    expect(loadConfig({ REQUEST_TIMEOUT_MS: String(2 ** 31 - 1) }).server.requestTimeoutMs).toBe(2 ** 31 - 1);
    expect(loadConfig({ SHUTDOWN_GRACE_MS: '0' }).server.shutdownGraceMs).toBe(0);
    refused({ SHUTDOWN_GRACE_MS: String(2 ** 31) }, 'SHUTDOWN_GRACE_MS');
    refused({ SHUTDOWN_GRACE_MS: '-1' }, 'SHUTDOWN_GRACE_MS');
    refused({ PG_STATEMENT_TIMEOUT_MS: '0' }, /^PG_STATEMENT_TIMEOUT_MS must be at least 1/);
    refused({ PG_STATEMENT_TIMEOUT_MS: String(2 ** 31 - 1) }, 'PG_STATEMENT_TIMEOUT_MS'); // + 1 s client-side
  });

  it('refuses a rate figure of 0: every call would be a 429 whose Retry-After a retry honours in vain', () => {
    for (const name of ['RATE_LIMIT_PER_MINUTE', 'RATE_LIMIT_PER_HOUR', 'RATE_LIMIT_BULK_PER_MINUTE', 'RATE_LIMIT_IP_PER_MINUTE']) {
      refused({ [name]: '0' }, new RegExp(`^${name} must be at least 1`));
      expect(() => loadConfig({ [name]: '1' })).not.toThrow();
    }
  });

  it("takes pino's levels and silent as LOG_LEVEL", () => {
    for (const level of [...Object.keys(pino.levels.values), 'silent']) expect(loadConfig({ LOG_LEVEL: level }).logLevel).toBe(level);
    refused({ LOG_LEVEL: 'verbose' }, 'LOG_LEVEL');
  });

  it('takes redis:// and rediss:// as REDIS_URL, nothing else, and never repeats a password', () => {
    expect(loadConfig({ REDIS_URL: 'rediss://:pw@cache:6380/1' }).redisUrl).toBe('rediss://:pw@cache:6380/1');
    refused({ REDIS_URL: 'http://127.0.0.1:6379' }, 'REDIS_URL');
    expect(() => loadConfig({ REDIS_URL: 'https://user:s3cretpw@cache:6379' })).toThrow(/^(?!.*s3cretpw).*REDIS_URL/);
  });

  it('reads ?pgbouncer= as true or false in the usual spellings, and refuses any other', () => {
    const bouncer = (value: string) =>
      poolerOptions((loadConfig({ DATABASE_URL: `postgres://u@h/db?pgbouncer=${value}` }).database as { url: string }).url);
    for (const yes of ['true', 'TRUE', 'yes', 'Yes', '1']) expect(bouncer(yes).pgbouncer).toBe(true);
    for (const no of ['false', 'False', 'no', 'NO', '0']) expect(bouncer(no).pgbouncer).toBe(false);
    refused({ DATABASE_URL: 'postgres://u@h/db?pgbouncer=maybe' }, /^DATABASE_URL: \?pgbouncer= must be true or false/);
  });

  it('parses DATABASE_URL and DATABASE_LISTEN_URL, naming the variable and never the password', () => {
    for (const [name, url] of [
      ['DATABASE_URL', 'postgres://leadline:s3cretpw@db.example:notaport/leadline'],
      ['DATABASE_URL', 'mysql://leadline:s3cretpw@db.example/leadline'],
      ['DATABASE_LISTEN_URL', 'postgres://leadline:s3cretpw@db.example:notaport/leadline'],
      ['DATABASE_LISTEN_URL', 'mysql://leadline:s3cretpw@db.example/leadline'],
      ['DATABASE_LISTEN_URL', 'leadline:s3cretpw@db.example'],
    ]) {
      expect(() => loadConfig({ [name!]: url! })).toThrow(new RegExp(`^${name}\\b(?!.*s3cretpw)`));
    }
    expect(() => loadConfig({ DATABASE_URL: 'mysql://leadline:s3cretpw@db.example/leadline' })).toThrow(
      '"mysql://***@db.example/leadline"',
    );
    // libpq also takes the password as a query parameter
    expect(() => loadConfig({ DATABASE_URL: 'mysql://db.example/leadline?password=s3cretpw&sslmode=require' })).toThrow(
      '"mysql://db.example/leadline?password=***&sslmode=***"',
    );
    expect(loadConfig({ DATABASE_LISTEN_URL: 'postgresql://u:p@db:5432/leadline' }).pgListenUrl).toBe('postgresql://u:p@db:5432/leadline');
  });

  it('checks each TRUST_PROXY entry as Fastify reads it: addresses, CIDRs, netmasks and the range names', () => {
    const list = '10.0.0.1, 10.0.0.0/8, ::1, fd00::/8, 192.168.0.0/255.255.0.0, loopback, linklocal, uniquelocal';
    expect(loadConfig({ TRUST_PROXY: list }).trustProxy).toBe(list);
    for (const bad of ['10.0.0.999', '10.0.0.0/33', '10.0.0.0/0', '10.0.0.1,', 'proxy.internal', '10.0.0.0/255.0.255.0']) {
      refused({ TRUST_PROXY: bad }, /^TRUST_PROXY/);
    }
  });
});

describe('configuration values refused at start, naming the variable, exit 2', () => {
  it.each([
    ['PORT', { PORT: '99999' }],
    ['LOG_LEVEL', { LOG_LEVEL: 'verbose' }],
    // ioredis would take it for a socket path, and the server run with per-instance limits
    ['REDIS_URL', { REDIS_URL: 'http://127.0.0.1:6379' }],
    ['TRUST_PROXY', { TRUST_PROXY: '10.0.0.999' }],
    // past 2^53: the limiter refused it on every request, so every request was a 500
    ['RATE_LIMIT_IP_PER_MINUTE', { RATE_LIMIT_IP_PER_MINUTE: '100000000000000000000' }],
  ])('%s', async (name, env) => {
    const r = await tryServe({ DATABASE_URL: db(`${name}.db`), ...env });
    expect([r.code, r.health]).toEqual([2, null]);
    expect(r.output).toContain(name);
  });

  it('a malformed or unsupported DATABASE_URL, or a PUBLIC_URL with credentials, without echoing the password', async () => {
    for (const [name, env] of [
      ['DATABASE_URL', { DATABASE_URL: 'postgres://leadline:s3cretpw@db.example:notaport/leadline' }],
      ['DATABASE_URL', { DATABASE_URL: 'mysql://leadline:s3cretpw@db.example/leadline' }],
      ['PUBLIC_URL', { DATABASE_URL: db('public.db'), PUBLIC_URL: 'https://admin:s3cretpw@leadline.example.com' }],
    ] as const) {
      const r = await cli(['company', 'list'], env);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(new RegExp(`leadline: .*${name}`));
      expect(r.stderr).not.toContain('s3cretpw');
    }
  });
});
