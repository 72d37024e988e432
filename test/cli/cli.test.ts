/** The operator CLI as scripts use it: real processes, --json output, exit codes. */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN } from '../helpers/server-process.js';
import { startServerProcess } from '../helpers/server-process.js';
import { connect } from '../reliability/sockets.js';

const dir = mkdtempSync(join(tmpdir(), 'leadline-cli-'));
const DATABASE_URL = `sqlite:${join(dir, 'cli.db')}`;
afterAll(() => rmSync(dir, { recursive: true, force: true }));
// only serve and migrate create a database; every other command needs one
beforeAll(async () => expect((await cli(['migrate'])).code).toBe(0));

function cli(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env: { ...process.env, DATABASE_URL, ...env } }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}
const json = async (args: string[]) => {
  const r = await cli([...args, '--json']);
  expect(r.stderr).toBe(`database: sqlite ${join(dir, 'cli.db')}\n`);
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout);
};

describe('leadline CLI', () => {
  it('migrate says which migrations it applied, and that nothing was left the second time', async () => {
    const fresh = { DATABASE_URL: `sqlite:${join(dir, 'migrate.db')}` };
    const first = await cli(['migrate'], fresh);
    expect([first.code, first.stdout]).toEqual([
      0,
      expect.stringMatching(/^applied \d+ migrations \(0001_core … \d{4}_\w+\); database is up to date\n$/),
    ]);
    const again = await cli(['migrate'], fresh);
    expect([again.code, again.stdout]).toEqual([0, 'database is up to date (no migration to apply)\n']);
  });

  it('prints help', async () => {
    const r = await cli(['--help']);
    expect(r.code).toBe(0);
    for (const command of ['serve', 'migrate', 'company', 'campaign', 'key']) expect(r.stdout).toContain(command);
  });

  it('creates a company, a campaign and keys; lists and revokes keys without ever showing values', async () => {
    const { companyId } = await json(['company', 'create', '--name', 'Acme']);
    expect(companyId).toMatch(/^co_/);
    const { campaignId } = await json([
      'campaign',
      'create',
      '--company',
      companyId,
      '--name',
      'Spring',
      '--timezone',
      'America/New_York',
      '--hours',
      'mon-fri 09:00-17:00',
      '--max-attempts',
      '5',
      '--predial-url',
      'https://crm.example/predial',
    ]);
    expect(campaignId).toMatch(/^cp_/);
    const write = await json(['key', 'create', '--company', companyId, '--name', 'importer', '--scope', 'write']);
    expect(Object.keys(write).sort()).toEqual(['key', 'keyId']);
    expect(write.key).toMatch(/^ll_/);
    const read = await json(['key', 'create', '--company', companyId, '--name', 'reader', '--scope', 'read', '--campaign', campaignId]);

    const listed = await cli(['key', 'list', '--company', companyId, '--json']);
    expect(listed.stdout).not.toContain(write.key);
    expect(listed.stdout).not.toContain(read.key);
    const keys = JSON.parse(listed.stdout);
    expect(keys).toHaveLength(2);
    expect(keys[1]).toMatchObject({ keyId: read.keyId, scope: 'read', campaignId, status: 'active', lastUsedAt: null });
    for (const k of keys) expect(Object.keys(k)).not.toContain('key_hash');

    expect(await json(['key', 'revoke', write.keyId])).toEqual({ keyId: write.keyId, revoked: true });
    const again = await cli(['key', 'revoke', write.keyId]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`no active key ${write.keyId}`);
    const after = JSON.parse((await cli(['key', 'list', '--company', companyId, '--json'])).stdout);
    expect(after.find((k: { keyId: string }) => k.keyId === write.keyId).status).toBe('revoked');
  });

  it('refuses bad input with a clear message: 1 for a failed command, 2 for bad usage or configuration', async () => {
    const scope = await cli(['key', 'create', '--company', 'co_x', '--name', 'n', '--scope', 'admin']);
    expect(scope.code).toBe(2);
    expect(scope.stderr).toMatch(/scope/);
    const company = await cli(['campaign', 'create', '--company', 'co_missing', '--name', 'n']);
    expect(company.code).toBe(1);
    expect(company.stderr).toContain('company co_missing not found');
    const attempts = await cli(['campaign', 'create', '--company', 'co_x', '--name', 'n', '--max-attempts', 'zero']);
    expect(attempts.code).toBe(2);
    expect(attempts.stderr).toContain('--max-attempts');
    const url = await cli(['migrate'], { DATABASE_URL: 'mysql://nope' });
    expect(url.code).toBe(2);
    expect(url.stderr).toContain('DATABASE_URL');
  });

  it('fails every command for an unknown company with 1 (README), lists instead of an empty list, purge and dnc instead of 2', async () => {
    const csv = join(dir, 'numbers.csv');
    writeFileSync(csv, 'phoneNumber\n+14155550100\n');
    for (const args of [
      ['key', 'list'],
      ['campaign', 'list'],
      ['user', 'list'],
      ['webhook', 'list'],
      ['purge', '--before', '2020-01-01'],
      ['dnc', 'add', '+14155550100'],
      ['dnc', 'remove', '+14155550100'],
      ['dnc', 'list'],
      ['dnc', 'import', csv],
    ]) {
      const r = await cli([...args, '--company', 'co_typo']);
      expect({ args, code: r.code, stdout: r.stdout }).toEqual({ args, code: 1, stdout: '' });
      expect(r.stderr).toContain('company co_typo not found');
    }
    // PORT=0 picks a port at every start: no sign-in link can be printed, and no password is made
    const { companyId } = await json(['company', 'create', '--name', 'Zero']);
    const zero = await cli(['user', 'create', '--company', companyId, '--email', 'zero@example.com'], { PORT: '0' });
    expect([zero.code, zero.stderr]).toEqual([2, expect.stringContaining('--url')]);
    // the link is printed for someone to open: only an http(s) base makes one
    const script = await cli(['user', 'create', '--company', companyId, '--email', 'js@example.com', '--url', 'javascript:alert(1)']);
    expect([script.code, script.stderr]).toEqual([
      2,
      expect.stringContaining('--url must be an http(s) address, got "javascript:alert(1)"'),
    ]);
    expect(await json(['user', 'list', '--company', companyId])).toEqual([]);
  });

  it('exits 2 on every usage error commander finds itself, 0 on help and version', async () => {
    const usage = [
      ['company', 'create'], // missing mandatory --name
      ['no-such-command'],
      ['key', 'list', '--company', 'co_x', '--no-such-option'],
      ['key', 'revoke'], // missing argument
    ];
    for (const args of usage) {
      const r = await cli(args);
      expect({ args, code: r.code }).toEqual({ args, code: 2 });
      expect(r.stderr).toMatch(/error|unknown/i);
    }
    expect((await cli(['key', '--help'])).code).toBe(0);
    expect((await cli(['--version'])).code).toBe(0);
  });
});

describe('leadline serve', () => {
  it('seeds a demo on first start whose key works, then drains in-flight requests on SIGTERM', async () => {
    const fresh = `sqlite:${join(dir, 'serve.db')}`;
    const server = await startServerProcess({ DATABASE_URL: fresh });
    const out = await server.waitForOutput(/one-time password/);
    const key = /API key:\s+(ll_\S+)/.exec(out)?.[1];
    const campaignId = /campaignId:\s+(cp_\S+)/.exec(out)?.[1];
    expect(key).toBeDefined();
    expect(campaignId).toBeDefined();

    // Start a request, send only half its body, then SIGTERM: the request must still complete.
    const body = JSON.stringify({ campaignId, phoneNumber: '+14155550123' });
    const { request } = await import('node:http');
    const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(
        `${server.url}/api/v1/leads`,
        { method: 'POST', headers: { 'x-api-key': key!, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
        (res) => {
          let text = '';
          res.on('data', (d) => (text += d));
          res.on('end', () => resolve({ status: res.statusCode!, body: text }));
        },
      );
      req.on('error', reject);
      req.write(body.slice(0, 10));
      setTimeout(() => {
        server.child.kill('SIGTERM');
        setTimeout(() => req.end(body.slice(10)), 300);
      }, 100);
    });
    const res = await response;
    expect(res.status).toBe(201);
    expect(JSON.parse(res.body).data.leadId).toMatch(/^ld_/);
    expect(await server.exited).toBe(0);

    // Second start on the same database: no new demo.
    const second = await startServerProcess({ DATABASE_URL: fresh });
    expect(second.output()).not.toContain('First start');
    const list = await fetch(`${second.url}/api/v1/leads?campaignId=${campaignId}`, { headers: { 'x-api-key': key! } });
    expect((await list.json()).data.count).toBe(1);
    expect(await second.stop('SIGINT')).toBe(0);
  });

  it('cuts a request still arriving SHUTDOWN_GRACE_MS after SIGTERM, then exits', async () => {
    const server = await startServerProcess({ DATABASE_URL: `sqlite:${join(dir, 'stalled.db')}`, SHUTDOWN_GRACE_MS: '1000' });
    // A body that stops halfway and never finishes. Node no longer applies REQUEST_TIMEOUT_MS
    // once its server is closing: before the grace, this held the server for over a minute.
    const client = await connect(Number(new URL(server.url).port));
    client.socket.write(
      'POST /api/v1/leads HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"campaignId":',
    );
    await new Promise((r) => setTimeout(r, 200));
    const signalled = Date.now();
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    const took = Date.now() - signalled;
    await client.closed;
    expect(took).toBeGreaterThanOrEqual(900); // the grace was given
    expect(took).toBeLessThan(10_000);
  });
});
