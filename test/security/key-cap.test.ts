/**
 * MAX_KEYS_PER_COMPANY: every key has its own rate budget, so a company's
 * active keys are capped (default 50). Refused in the service (so the CLI and
 * the dashboard say the same), counted and inserted under one lock, and a
 * revoked key frees its place.
 */
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, DEFAULT_MAX_KEYS_PER_COMPANY, revokeKey } from '../../src/auth/service.js';
import { createCompany } from '../../src/campaigns/service.js';
import { loadConfig } from '../../src/config.js';
import { availableStores } from '../helpers/db.js';
import { type Fixture, makeFixture } from '../helpers/fixture.js';
import { BIN } from '../helpers/server-process.js';
import { signedInUser } from '../web/support.js';

describe.each(await availableStores())('MAX_KEYS_PER_COMPANY on %s', (kind) => {
  let f: Fixture;
  beforeAll(async () => {
    // the fixture gives company A three active keys and a revoked one
    f = await makeFixture(kind, { env: { MAX_KEYS_PER_COMPANY: '4' } });
  });
  afterAll(() => f.close());

  it('defaults to 50', () => {
    expect(loadConfig({}).maxKeysPerCompany).toBe(50);
    expect(DEFAULT_MAX_KEYS_PER_COMPANY).toBe(50);
    expect(() => loadConfig({ MAX_KEYS_PER_COMPANY: '0' })).toThrow(/MAX_KEYS_PER_COMPANY/);
  });

  it('refuses a key past the cap with a message saying what to do; a revoked key frees its place', async () => {
    const { companyId } = await createCompany(f.db, 'Capped');
    const made = [];
    for (let i = 0; i < 3; i++) made.push(await createKey(f.db, { companyId, name: `k${i}`, scope: 'read' }, Date.now(), 3));
    await expect(createKey(f.db, { companyId, name: 'one too many', scope: 'read' }, Date.now(), 3)).rejects.toThrow(
      `company ${companyId} already has 3 active API keys, the most MAX_KEYS_PER_COMPANY allows (3); revoke one first`,
    );
    await revokeKey(f.db, made[0]!.keyId);
    await expect(createKey(f.db, { companyId, name: 'in its place', scope: 'read' }, Date.now(), 3)).resolves.toMatchObject({
      keyId: expect.stringMatching(/^key_/),
    });
  });

  it('twenty creates at once against a cap of 4: exactly 4 keys exist', async () => {
    const { companyId } = await createCompany(f.db, 'Racing');
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) => createKey(f.db, { companyId, name: `r${i}`, scope: 'write' }, Date.now(), 4)),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(4);
    expect(await f.db.keys.activeCount(companyId)).toBe(4);
  });

  it('the dashboard shows the refusal on the keys page and creates nothing', async () => {
    const b = await signedInUser(f.app, f.db, f.ids.companyA, 'capped@example.com');
    const first = await b.post('/dashboard/settings/keys', { name: 'fourth', scope: 'read' });
    expect(first.status).toBe(200);
    const second = await b.post('/dashboard/settings/keys', { name: 'fifth', scope: 'read' });
    expect(second.status).toBe(400);
    expect(second.body).toContain('already has 4 active API keys, the most MAX_KEYS_PER_COMPANY allows (4); revoke one first');
    expect(await f.db.keys.activeCount(f.ids.companyA)).toBe(4);
  });

  it('the CLI exits 1 with the same message', () => {
    const env = { ...process.env, DATABASE_URL: f.store.url, MAX_KEYS_PER_COMPANY: '4', LOG_LEVEL: 'silent' };
    const r = spawnSync(process.execPath, [BIN, 'key', 'create', '--company', f.ids.companyA, '--name', 'cli', '--scope', 'read'], {
      env,
      encoding: 'utf8',
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('already has 4 active API keys, the most MAX_KEYS_PER_COMPANY allows (4); revoke one first');
  });
});
