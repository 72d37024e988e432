/** `leadline user …` and the first start's dashboard sign-in, as real processes (the compiled CLI). */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, startServerProcess } from '../helpers/server-process.js';

const dir = mkdtempSync(join(tmpdir(), 'leadline-user-'));
const DATABASE_URL = `sqlite:${join(dir, 'users.db')}`;
afterAll(() => rmSync(dir, { recursive: true, force: true }));
beforeAll(async () => expect((await cli(['migrate'])).code).toBe(0));

function cli(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env: { ...process.env, DATABASE_URL, ...env } }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** signs in over real HTTP like a browser: the form's cookie and token, then the POST */
async function signIn(base: string, email: string, password: string): Promise<Response> {
  const page = await fetch(`${base}/dashboard/login`);
  const cookie = page.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  const token = /name="_csrf" value="([^"]+)"/.exec(await page.text())![1]!;
  return fetch(`${base}/dashboard/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _csrf: token, email, password }),
  });
}

describe('leadline user', () => {
  it('creates a user with a one-time password, lists users, refuses a second account for one email', async () => {
    const { companyId } = JSON.parse((await cli(['company', 'create', '--name', 'Acme', '--json'])).stdout);
    const created = await cli(['user', 'create', '--company', companyId, '--email', 'Ops@Acme.test', '--url', 'https://leads.acme.test/']);
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(/one-time password: [a-z2-9]{5}(-[a-z2-9]{5}){3}\n/);
    expect(created.stdout).toContain('sign in at:        https://leads.acme.test/dashboard/login');
    const again = await cli(['user', 'create', '--company', companyId, '--email', 'ops@acme.test']);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('a user with email ops@acme.test already exists');
    const missing = await cli(['user', 'create', '--company', 'co_missing', '--email', 'x@acme.test']);
    expect(missing.code).toBe(1);
    const users = JSON.parse((await cli(['user', 'list', '--company', companyId, '--json'])).stdout);
    expect(users).toEqual([
      { userId: expect.stringMatching(/^us_/), email: 'ops@acme.test', createdAt: expect.any(String), passwordSet: false },
    ]);
    const reset = JSON.parse((await cli(['user', 'reset-password', '--email', 'OPS@acme.test', '--json'])).stdout);
    expect(reset).toMatchObject({
      email: 'ops@acme.test',
      oneTimePassword: expect.any(String),
      signInUrl: expect.stringContaining('/dashboard/login'),
    });
  });

  it('the first start prints a dashboard sign-in whose one-time password works once', async () => {
    const server = await startServerProcess({ DATABASE_URL: `sqlite:${join(dir, 'demo.db')}` });
    try {
      const out = await server.waitForOutput(/one-time password \S+/);
      const email = /email (\S+), one-time password (\S+)/.exec(out);
      expect(out).toContain('/dashboard/login');
      expect(email).not.toBeNull();
      const first = await signIn(server.url, email![1]!, email![2]!);
      expect(first.status).toBe(303);
      expect(first.headers.get('location')).toBe('/dashboard/');
      expect((await signIn(server.url, email![1]!, email![2]!)).status).toBe(401);
    } finally {
      await server.stop();
    }
  });
});
