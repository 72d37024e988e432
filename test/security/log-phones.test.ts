/**
 * Phone numbers never appear in the request log: a DELETE ?phoneNumber= and
 * a do-not-call lookup are logged with the number redacted, however it was
 * sent (%2B, a raw "+", malformed). docs/compliance.md "Phone numbers in logs".
 */
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../../src/auth/service.js';
import { createCampaign, createCompany } from '../../src/campaigns/service.js';
import { loadConfig } from '../../src/config.js';
import { buildApp } from '../../src/http/app.js';
import { createLogger, loggableUrl } from '../../src/logger.js';
import { MemoryRateLimiter } from '../../src/ratelimit/memory.js';
import type { Store } from '../../src/store/index.js';
import { availableStores, createTestStore, type TestStore } from '../helpers/db.js';

describe('loggableUrl', () => {
  it('redacts phone numbers in query strings and keeps the rest', () => {
    expect(loggableUrl('/api/v1/leads?campaignId=cp_1&phoneNumber=%2B14155550123')).toBe(
      '/api/v1/leads?campaignId=cp_1&phoneNumber=[redacted]',
    );
    expect(loggableUrl('/api/v1/dnc?phoneNumber=+14155550123')).toBe('/api/v1/dnc?phoneNumber=[redacted]');
    expect(loggableUrl('/api/v1/dnc?phoneNumber=nope')).toBe('/api/v1/dnc?phoneNumber=[redacted]');
    expect(loggableUrl('/api/v1/leads?campaignId=cp_1&externalId=%2B442079460000')).toBe(
      '/api/v1/leads?campaignId=cp_1&externalId=[redacted]',
    );
    expect(loggableUrl('/api/v1/leads?campaignId=cp_1&limit=100&cursor=djEuMQ')).toBe(
      '/api/v1/leads?campaignId=cp_1&limit=100&cursor=djEuMQ',
    );
    expect(loggableUrl('/api/health')).toBe('/api/health');
  });

  it('redacts whatever spelling of the name or number reaches it, and leaves a query without either as it came', () => {
    expect(loggableUrl('/api/v1/dnc?%70honeNumber=abc')).toBe('/api/v1/dnc?%70honeNumber=[redacted]');
    expect(loggableUrl('/api/v1/dnc?PHONENUMBER=abc&x=1')).toBe('/api/v1/dnc?PHONENUMBER=[redacted]&x=1');
    expect(loggableUrl('/api/v1/leads?externalId=123456')).toBe('/api/v1/leads?externalId=[redacted]');
    expect(loggableUrl('/api/v1/leads?externalId=crm%2D42')).toBe('/api/v1/leads?externalId=crm%2D42');
    expect(loggableUrl('/api/v1/leads?externalId=12345&limit=1')).toBe('/api/v1/leads?externalId=12345&limit=1');
    const page = '/api/v1/leads?campaignId=cp_1BvYS4b6MSKyjJIVZ59Ucw&limit=1';
    expect(loggableUrl(page)).toBe(page);
  });
});

describe.each(await availableStores())('phone numbers in the request log on %s', (kind) => {
  let store: TestStore;
  let db: Store;
  let app: FastifyInstance;
  let key: string;
  let campaignId: string;
  let log = '';

  beforeAll(async () => {
    store = await createTestStore(kind);
    db = await store.open();
    const { companyId } = await createCompany(db, 'Log Co');
    campaignId = (await createCampaign(db, { companyId, name: 'c' })).campaignId;
    key = (await createKey(db, { companyId, name: 'k', scope: 'write' })).key;
    const sink = new Writable({
      write(chunk, _encoding, done) {
        log += String(chunk);
        done();
      },
    });
    const config = { ...loadConfig({}), database: store.config };
    app = await buildApp({ config, store: db, limiter: new MemoryRateLimiter(), logger: createLogger('trace', sink) });
  });
  afterAll(async () => {
    await app?.close();
    await db?.close();
    await store?.drop();
  });

  it('logs every request, and no number', async () => {
    const call = (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object) =>
      app.inject({ method, url, headers: { 'x-api-key': key }, ...(payload ? { payload } : {}) });
    expect((await call('POST', '/api/v1/leads', { campaignId, phoneNumber: '+14155557001' })).statusCode).toBe(201);
    expect((await call('POST', '/api/v1/leads', { campaignId, phoneNumber: '+14155557002' })).statusCode).toBe(201);
    expect((await call('DELETE', `/api/v1/leads?campaignId=${campaignId}&phoneNumber=%2B14155557001`)).statusCode).toBe(200);
    expect((await call('DELETE', `/api/v1/records?campaignId=${campaignId}&phoneNumber=+14155557002`)).statusCode).toBe(200);
    expect((await call('DELETE', `/api/v1/leads?campaignId=${campaignId}&phoneNumber=4155557003`)).statusCode).toBe(400);
    expect((await call('POST', '/api/v1/dnc', { phoneNumbers: ['+14155557004'] })).statusCode).toBe(200);
    expect((await call('GET', '/api/v1/dnc?phoneNumber=%2B14155557004')).statusCode).toBe(200);
    const lines = log
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.filter((l) => l.msg === 'request')).toHaveLength(7);
    expect(log).toContain('phoneNumber=[redacted]');
    expect(log).not.toMatch(/415555700/);
  });
});
