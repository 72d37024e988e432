/**
 * A newcomer's first hour with the CLI: where the database is, no empty
 * database created by accident, lookups, and a demo that is never lost.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/index.js';
import { BIN, freePort, startServerProcess } from '../helpers/server-process.js';

const dir = mkdtempSync(join(tmpdir(), 'leadline-newcomer-'));
const path = join(dir, 'lookups.db');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function cli(args: string[], env: Record<string, string> = {}, cwd?: string) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { cwd, env: { ...process.env, DATABASE_URL: `sqlite:${path}`, ...env } },
      (err, stdout, stderr) => resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}
const json = async (args: string[]) => {
  const r = await cli([...args, '--json']);
  expect([r.code, r.stderr]).toEqual([0, `database: sqlite ${path}\n`]);
  return JSON.parse(r.stdout);
};

describe('the database a command opens', () => {
  it('is named on stderr; a relative path resolves against the current folder', async () => {
    const migrated = await cli(['migrate'], { DATABASE_URL: 'sqlite:./data/here.db' }, dir);
    expect(migrated.code).toBe(0);
    expect(migrated.stderr).toBe(`database: sqlite ${join(dir, 'data', 'here.db')}\n`);
    expect(existsSync(join(dir, 'data', 'here.db'))).toBe(true);
  });

  it('names the PostgreSQL host and database, never the password', async () => {
    const r = await cli(['company', 'list'], { DATABASE_URL: 'postgres://u:s3cret@127.0.0.1:1/nowhere' });
    expect(r.stderr).toContain('database: postgres 127.0.0.1:1/nowhere\n');
    expect(r.stderr).not.toContain('s3cret');
    expect(r.code).not.toBe(0);
  });

  it('is never created by a command other than serve or migrate: it says so and exits 2', async () => {
    const elsewhere = join(dir, 'elsewhere');
    mkdirSync(elsewhere);
    for (const args of [
      ['company', 'list'],
      ['campaign', 'list'],
      ['key', 'list', '--company', 'co_x'],
      ['user', 'list', '--company', 'co_x'],
      ['dialer', '--once'],
      ['dialer', 'status'],
    ]) {
      const r = await cli(args, { DATABASE_URL: 'sqlite:./data/leadline.db' }, elsewhere);
      expect({ args, code: r.code }).toEqual({ args, code: 2 });
      expect(r.stderr).toContain(`no database at ${join(elsewhere, 'data', 'leadline.db')}`);
      expect(r.stderr).toContain('leadline migrate');
    }
    expect(existsSync(join(elsewhere, 'data'))).toBe(false);
  }, 120_000);
});

describe('lookups', () => {
  beforeAll(async () => expect((await cli(['migrate'])).code).toBe(0));

  it('company list, campaign list [--company] and campaign show, as text and --json', async () => {
    expect((await cli(['company', 'list'])).stdout).toBe('no companies\n');
    const a = await json(['company', 'create', '--name', 'Acme']);
    const b = await json(['company', 'create', '--name', 'Bolt']);
    const companies = await json(['company', 'list']);
    expect(companies).toEqual([
      { companyId: a.companyId, name: 'Acme', createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) },
      { companyId: b.companyId, name: 'Bolt', createdAt: expect.any(String) },
    ]);
    expect((await cli(['company', 'list'])).stdout).toMatch(new RegExp(`^${a.companyId} .* Acme\\n${b.companyId} .* Bolt\\n$`));

    const spring = await json(['campaign', 'create', '--company', a.companyId, '--name', 'Spring']);
    const other = await json(['campaign', 'create', '--company', b.companyId, '--name', 'Other']);
    expect((await json(['campaign', 'list'])).map((c: { campaignId: string }) => c.campaignId)).toEqual([
      spring.campaignId,
      other.campaignId,
    ]);
    const ofA = await json(['campaign', 'list', '--company', a.companyId]);
    expect(ofA).toEqual([expect.objectContaining({ campaignId: spring.campaignId, companyId: a.companyId, name: 'Spring' })]);
    expect(await json(['campaign', 'show', spring.campaignId])).toMatchObject({ campaignId: spring.campaignId, name: 'Spring' });
    const missing = await cli(['campaign', 'show', 'cp_missing']);
    expect([missing.code, missing.stderr]).toEqual([1, expect.stringContaining('campaign cp_missing not found')]);
  }, 180_000); // ten processes, on a busy machine
});

describe('the first start', () => {
  it('creates no demo when it cannot listen; the next start that listens creates and prints it', async () => {
    const db = `sqlite:${join(dir, 'demo.db')}`;
    const port = await freePort();
    const taken = net.createServer();
    await new Promise<void>((r) => taken.listen(port, '127.0.0.1', r));
    try {
      const failed = await cli(['serve'], { DATABASE_URL: db, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' });
      expect(failed.code).toBe(1);
      expect(failed.stderr).toContain('EADDRINUSE');
      expect(failed.stdout).not.toContain('First start');
    } finally {
      await new Promise((r) => taken.close(r));
    }
    const listed = await cli(['company', 'list', '--json'], { DATABASE_URL: db });
    expect(JSON.parse(listed.stdout)).toEqual([]);

    const server = await startServerProcess({ DATABASE_URL: db });
    try {
      const out = await server.waitForOutput(/one-time password \S+/);
      expect(out).toContain('First start: a demo company');
    } finally {
      await server.stop();
    }
    // the demo user never signed in: the next start says how to get a key and a sign-in
    const again = await startServerProcess({ DATABASE_URL: db });
    try {
      const out = await again.waitForOutput(/reset-password/);
      expect(out).not.toContain('First start');
      expect(out).toMatch(/leadline key create --company co_\S+ --name "my key" --scope write/);
      expect(out).toContain('leadline user reset-password --email demo@example.com');
    } finally {
      await again.stop();
    }
  }, 120_000);
});

describe('the first start with PORT=0 (any free port)', () => {
  it('prints curl lines and a dashboard URL with the port it really listens on, after the line naming it', async () => {
    const child = spawn(process.execPath, [BIN, 'serve'], {
      env: { ...process.env, DATABASE_URL: `sqlite:${join(dir, 'zero.db')}`, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    try {
      const until = Date.now() + 30_000;
      while (!/one-time password \S+/.test(out) && Date.now() < until && child.exitCode === null)
        await new Promise((r) => setTimeout(r, 50));
      const address = /"address":"(http:\/\/[^"]+)"/.exec(out)?.[1];
      expect(address).toMatch(/^http:\/\/127\.0\.0\.1:[1-9]\d*$/);
      expect(/Dashboard: (\S+)/.exec(out)?.[1]).toBe(`${address}/dashboard/login`);
      expect(out).toContain(`curl -s '${address}/api/v1/leads?campaignId=`);
      expect(out).not.toContain('127.0.0.1:0/');
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    }
  });
});

describe("README's CLI section", () => {
  it('lists every command', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const section = readme.slice(readme.indexOf('## The CLI'), readme.indexOf('\n## ', readme.indexOf('## The CLI') + 1));
    const names: string[] = [];
    for (const command of buildProgram().commands) {
      // a group's own action (dialer) is a command too
      if (command.commands.length === 0 || command.name() === 'dialer') names.push(command.name());
      for (const sub of command.commands) names.push(`${command.name()} ${sub.name()}`);
    }
    expect(names.length).toBeGreaterThan(20);
    expect(names.filter((name) => !section.includes(`leadline ${name}`))).toEqual([]);
  });
});
