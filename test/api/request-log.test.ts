/**
 * The request log line (src/http/request-log.ts) is written without pino's
 * per-call path, so these pin it to what pino itself writes for the same
 * fields: byte for byte, for request ids and URLs a client chose (quotes,
 * backslashes, control characters, Latin-1), and through the app.
 */
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createKey } from '../../src/auth/service.js';
import { createCompany } from '../../src/campaigns/service.js';
import { loadConfig } from '../../src/config.js';
import { buildApp } from '../../src/http/app.js';
import { logRequest, requestLineText } from '../../src/http/request-log.js';
import { createLogger } from '../../src/logger.js';
import { MemoryRateLimiter } from '../../src/ratelimit/memory.js';
import type { Store } from '../../src/store/index.js';
import { createTestStore, type TestStore } from '../helpers/db.js';

function capture() {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { lines, sink };
}

const HOSTILE = ['plain-1', 'a"b\\c', 'tab\there', 'nl\nx', '\u0001\u001f', 'é ü ÿ', '', '{"reqId":"x"}', '\u2028'];

describe('the request line', () => {
  it('is what pino writes for the same fields, byte for byte', async () => {
    const { lines, sink } = capture();
    const root = createLogger('info', sink);
    const now = 1_795_000_000_123;
    vi.spyOn(Date, 'now').mockReturnValue(now);
    try {
      for (const reqId of HOSTILE) {
        for (const url of ['/api/health', '/api/v1/leads?campaignId=cp_1&limit=1', '/x?"quote"\\&\u0000=é']) {
          const child = root.child({ reqId });
          const line = { method: 'GET', url, status: 200, ms: 3 };
          child.info(line, 'request');
          await new Promise((r) => setImmediate(r));
          expect(requestLineText(child, line, now)).toBe(lines.pop());
        }
      }
    } finally {
      vi.restoreAllMocks();
    }
  });

  it('is left out when the level is above info', async () => {
    const { lines, sink } = capture();
    const log = createLogger('warn', sink).child({ reqId: 'r' });
    logRequest(log, { method: 'GET', url: '/', status: 200, ms: 0 });
    await new Promise((r) => setImmediate(r));
    expect(lines).toEqual([]);
  });
});

describe('the request line through the app (SQLite)', () => {
  let store: TestStore;
  let db: Store;
  let app: FastifyInstance;
  let key: string;
  const { lines, sink } = capture();

  beforeAll(async () => {
    store = await createTestStore('sqlite');
    db = await store.open();
    const { companyId } = await createCompany(db, 'Log Co');
    key = (await createKey(db, { companyId, name: 'k', scope: 'write' })).key;
    const config = { ...loadConfig({}), database: store.config };
    app = await buildApp({ config, store: db, limiter: new MemoryRateLimiter(), logger: createLogger('info', sink) });
  });
  afterAll(async () => {
    await app?.close();
    await db?.close();
    await store?.drop();
  });

  it('carries the request id the client sent, escaped, and the status', async () => {
    for (const id of ['a"b\\c', 'é', 'trace-1']) {
      lines.length = 0;
      const res = await app.inject({
        method: 'GET',
        url: '/api/v1/leads?campaignId=cp_nope&limit=1',
        headers: { 'x-api-key': key, 'x-request-id': Buffer.from(id, 'utf8').toString('latin1') },
      });
      expect(res.statusCode).toBe(404);
      await new Promise((r) => setImmediate(r));
      const logged = lines.map((l) => JSON.parse(l)).filter((l) => l.msg === 'request');
      expect(logged).toHaveLength(1);
      expect(Object.keys(logged[0])).toEqual(['level', 'time', 'pid', 'hostname', 'reqId', 'method', 'url', 'status', 'ms', 'msg']);
      expect(logged[0]).toMatchObject({
        level: 30,
        reqId: res.headers['x-request-id'],
        method: 'GET',
        url: '/api/v1/leads?campaignId=cp_nope&limit=1',
        status: 404,
      });
    }
  });
});
