/**
 * API keys never appear in logs, error bodies or `key list`; only their
 * sha256 is stored; a key whose format or checksum is wrong is refused
 * before any database lookup.
 */
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import net from 'node:net';
import { dirname, join } from 'node:path';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyValue, hashKey } from '../../src/auth/keys.js';
import { createKey, KeyAuthenticator, revokeKey } from '../../src/auth/service.js';
import { createCampaign, createCompany } from '../../src/campaigns/service.js';
import { loadConfig } from '../../src/config.js';
import type { Store } from '../../src/store/index.js';
import { buildApp } from '../../src/http/app.js';
import { createLogger } from '../../src/logger.js';
import { MemoryRateLimiter } from '../../src/ratelimit/memory.js';
import { availableStores, createTestStore, type TestStore } from '../helpers/db.js';
import { BIN, startServerProcess } from '../helpers/server-process.js';
import { countingDb, tamper } from './support.js';

/**
 * every form in which a key must never show: the value, its secret part, its
 * hash, and its bytes as pino writes a Buffer (Fastify's default client-error
 * handler logged the raw request that way, headers and all)
 */
const forms = (key: string) => [key, key.slice(3, 35), hashKey(key), [...Buffer.from(key.slice(3, 35))].join(',')];

function expectNoKeys(text: string, keys: readonly string[], where: string): void {
  for (const key of keys) for (const form of forms(key)) expect(text.includes(form), `${where} holds ${form}`).toBe(false);
}

/** wrong format or checksum: none of these may cost a database lookup */
function malformed(key: string): string[] {
  return [
    tamper(key, 1), // checksum
    tamper(key, 20), // body, so the checksum no longer matches
    `LL_${key.slice(3)}`,
    key.slice(0, -1),
    `${key}0`,
    `${key.slice(0, 10)}!${key.slice(11)}`,
    key.slice(0, 35) + key.slice(35).toUpperCase().replace(/[0-9]/g, 'A'),
    ` ${key}`,
    `${key}\t`,
    `ⅼⅼ_${key.slice(3)}`,
    `Bearer ${key}`,
    'x'.repeat(8000),
    'll_',
  ];
}

async function companyWithKeys(db: Store) {
  const { companyId } = await createCompany(db, 'Secret Co');
  const { campaignId } = await createCampaign(db, { companyId, name: 'Secret campaign' });
  const write = await createKey(db, { companyId, name: 'w', scope: 'write' });
  const read = await createKey(db, { companyId, name: 'r', scope: 'read', campaignId });
  const revoked = await createKey(db, { companyId, name: 'gone', scope: 'write' });
  await revokeKey(db, revoked.keyId);
  return { companyId, campaignId, keys: [write.key, read.key, revoked.key], write: write.key, read: read.key, revoked: revoked.key };
}

describe.each(await availableStores())('secrets on %s', (kind) => {
  let store: TestStore;
  let db: Store;
  let app: FastifyInstance;
  let queries: () => number;
  let setup: Awaited<ReturnType<typeof companyWithKeys>>;
  let log = '';

  beforeAll(async () => {
    store = await createTestStore(kind);
    db = await store.open();
    setup = await companyWithKeys(db);
    const counted = countingDb(db);
    queries = counted.queries;
    const sink = new Writable({
      write(chunk, _encoding, done) {
        log += String(chunk);
        done();
      },
    });
    const config = { ...loadConfig({ RATE_LIMIT_IP_PER_MINUTE: '20' }), database: store.config };
    app = await buildApp({ config, store: counted.db, limiter: new MemoryRateLimiter(), logger: createLogger('trace', sink) });
  });
  afterAll(async () => {
    await app?.close();
    await db?.close();
    await store?.drop();
  });

  const call = (key: string | undefined, method: 'GET' | 'POST' | 'DELETE', url: string, payload?: string, remoteAddress?: string) =>
    app.inject({
      method,
      url,
      payload,
      remoteAddress,
      headers: {
        ...(key === undefined ? {} : { 'x-api-key': key }),
        ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
      },
    });

  it('a malformed or tampered key is refused with 401 before any database lookup', async () => {
    for (const [i, bad] of setup.keys.flatMap(malformed).entries()) {
      const before = queries();
      // one client address each, so the per-IP failure budget does not turn these into 429s
      const res = await call(bad, 'GET', `/api/v1/leads?campaignId=${setup.campaignId}`, undefined, `10.0.0.${i + 1}`);
      expect(res.statusCode, bad).toBe(401);
      expect(res.json().error).toBe('Invalid or inactive API key');
      expect(queries() - before, `queries for ${JSON.stringify(bad.slice(0, 50))}`).toBe(0);
    }
    // the same through the authenticator alone, with nothing cached
    const counted = countingDb(db);
    const authenticator = new KeyAuthenticator(counted.db.keys, 0);
    for (const bad of malformed(setup.write)) expect(await authenticator.authenticate(bad)).toBeNull();
    expect(counted.queries()).toBe(0);
    // control: a well-formed unknown key does reach the database, so the counter counts
    expect(await authenticator.authenticate(generateKeyValue())).toBeNull();
    expect(counted.queries()).toBe(1);
  });

  it('no key value, secret part or hash in any response body or log line, whatever happens', async () => {
    const { campaignId, write, read, revoked } = setup;
    const create = (phone: string) => JSON.stringify({ campaignId, phoneNumber: phone });
    const responses = [
      await call(write, 'POST', '/api/v1/leads', create('+14155550401')),
      await call(write, 'POST', '/api/v1/leads', create('+14155550401')), // 409
      await call(write, 'POST', '/api/v1/records/bulk', '{"campaignId":'), // bad JSON
      await call(write, 'POST', '/api/v1/leads', 'x'.repeat(100)), // bad JSON
      await call(read, 'POST', '/api/v1/leads', create('+14155550402')), // 403
      await call(read, 'GET', `/api/v1/leads?campaignId=${campaignId}`),
      await call(read, 'GET', '/api/v1/leads?campaignId=cp_other'), // 404
      await call(write, 'DELETE', `/api/v1/leads?campaignId=${campaignId}&externalId=nope`), // 404
      await call(revoked, 'GET', `/api/v1/leads?campaignId=${campaignId}`), // 401
      await call(write, 'GET', `/api/v1/nowhere`), // 404
      await call(write, 'GET', `/api/v1/leads/%FF`), // bad URL
      ...(await Promise.all(Array.from({ length: 30 }, (_, i) => call(tamper(write, (i % 8) + 1), 'GET', '/api/v1/leads')))), // then 429
    ];
    // and a real internal error on the key lookup itself
    await sql`alter table api_keys rename to api_keys_gone`.execute(db.kysely);
    const fresh = generateKeyValue();
    const failed = await call(fresh, 'GET', `/api/v1/leads?campaignId=${campaignId}`);
    expect(failed.statusCode).toBeGreaterThanOrEqual(500);
    responses.push(failed);

    const statuses = new Set(responses.map((r) => r.statusCode));
    expect([...statuses].sort()).toEqual(expect.arrayContaining([200, 201, 400, 401, 403, 404, 409, 429]));
    const keys = [...setup.keys, fresh];
    for (const res of responses) expectNoKeys(`${JSON.stringify(res.headers)}\n${res.body}`, keys, `a ${res.statusCode} response`);
    expect(log).toContain('"level":50'); // the 500 was logged…
    expect(log).toContain('"status":401'); // …and so was every request
    expectNoKeys(log, keys, 'the log');
  });

  it('the logger redacts the key header wherever a request or its headers are logged', () => {
    const lines: string[] = [];
    const logger = createLogger('info', { write: (line: string) => void lines.push(line) });
    const key = generateKeyValue();
    const headers = { 'x-api-key': key, host: 'example' };
    logger.info({ req: { headers } }, 'request object');
    logger.info({ request: { headers } }, 'fastify request');
    logger.info({ headers }, 'bare headers');
    logger.info({ key }, 'a key field');
    logger.child({ reqId: 1 }).info({ req: { headers } }, 'child logger');
    expect(lines).toHaveLength(5);
    for (const line of lines) expect(line).toContain('[redacted]');
    expectNoKeys(lines.join('\n'), [key], 'the redacted log');
  });
});

describe('secrets in a served process and in the operator CLI', () => {
  let store: TestStore;
  let setup: Awaited<ReturnType<typeof companyWithKeys>>;
  beforeAll(async () => {
    store = await createTestStore('sqlite');
    const db = await store.open();
    setup = await companyWithKeys(db); // a company exists, so serve seeds no demo key
    await db.close();
  });
  afterAll(() => store?.drop());

  const cli = (args: string[]) =>
    new Promise<{ code: number; out: string; stdout: string }>((resolve) =>
      execFile(process.execPath, [BIN, ...args], { env: { ...process.env, DATABASE_URL: store.url } }, (err, stdout, stderr) =>
        resolve({ code: err ? 1 : 0, out: stdout + stderr, stdout }),
      ),
    );

  it('`leadline serve` at trace level logs no key, even for requests Node itself refuses', async () => {
    const server = await startServerProcess({ DATABASE_URL: store.url, LOG_LEVEL: 'trace' });
    try {
      const { campaignId, write, read, revoked } = setup;
      for (const key of [write, read, revoked, tamper(write), generateKeyValue()]) {
        await fetch(`${server.url}/api/v1/leads?campaignId=${campaignId}`, { headers: { 'x-api-key': key } });
        await fetch(`${server.url}/api/v1/leads`, {
          method: 'POST',
          headers: { 'x-api-key': key, 'content-type': 'application/json' },
          body: '{"campaignId":',
        });
      }
      // a malformed request and an oversized head, both carrying a key: refused by the HTTP parser
      const port = Number(new URL(server.url).port);
      for (const raw of [
        `GET /api/v1/leads HTTP/1.1\r\nHost: x\r\nx-api-key: ${write}\r\nBad Header\r\n\r\n`,
        `GET /api/v1/leads HTTP/1.1\r\nHost: x\r\nx-api-key: ${write}\r\nx-pad: ${'p'.repeat(20_000)}\r\n\r\n`,
      ]) {
        const answer = await rawRequest(port, raw);
        expect(answer).toMatch(/^HTTP\/1\.1 4\d\d /);
        expectNoKeys(answer, setup.keys, 'a parser error answer');
      }
    } finally {
      await server.stop();
    }
    expect(server.output()).toContain('"status":401');
    expectNoKeys(server.output(), setup.keys, 'the server output');
  });

  it('`key list` shows neither key values nor hashes, and the database file holds only hashes', async () => {
    const created = await cli(['key', 'create', '--company', setup.companyId, '--name', 'cli', '--scope', 'write', '--json']);
    const cliKey = JSON.parse(created.stdout).key as string;
    const keys = [...setup.keys, cliKey];
    for (const args of [['--json'], []]) {
      const listed = await cli(['key', 'list', '--company', setup.companyId, ...args]);
      expect(listed.code).toBe(0);
      expect(listed.out).toContain('revoked');
      expectNoKeys(listed.out, keys, `key list ${args.join(' ')}`);
    }
    const db = await store.open();
    const rows = await db.kysely.selectFrom('api_keys').selectAll().execute();
    await db.close();
    expect(rows.map((r) => r.key_hash).sort()).toEqual(keys.map(hashKey).sort());
    for (const key of keys) expect(JSON.stringify(rows)).not.toContain(key.slice(3, 35));
    // the bytes on disk, write-ahead log included
    const dir = dirname((store.config as { path: string }).path);
    const bytes = readdirSync(dir)
      .map((name) => readFileSync(join(dir, name)).toString('latin1'))
      .join('\n');
    for (const key of keys) expect(bytes.includes(key.slice(3, 35)), 'a key value on disk').toBe(false);
  });
});

/** writes raw bytes, resolves with whatever comes back before the server closes */
function rawRequest(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    let answer = '';
    socket.on('data', (d) => (answer += d));
    socket.on('close', () => resolve(answer));
    socket.on('error', (err) => (answer ? resolve(answer) : reject(err)));
    socket.setTimeout(5000, () => socket.destroy());
    socket.write(text);
  });
}
