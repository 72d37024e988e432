/**
 * Real `leadline` processes (serve, dialer, the CLI) over one temporary
 * SQLite file, with a read-only connection of the test's own: what several
 * processes on one file do to each other (its one write lock, commits one
 * process never hears of).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { openSqliteFile } from '../../src/db/sqlite-driver.js';
import { cli, type DialerProcess, startDialer } from './dialer-process.js';
import { type ServerProcess, startServerProcess } from '../helpers/server-process.js';

/** generous limits: the tests measure locking, not rate limits */
const LIMITS = {
  RATE_LIMIT_PER_MINUTE: '1000000',
  RATE_LIMIT_PER_HOUR: '10000000',
  RATE_LIMIT_BULK_PER_MINUTE: '100000',
  RATE_LIMIT_IP_PER_MINUTE: '1000000',
};

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function until(what: string, test: () => boolean | Promise<boolean>, timeoutMs: number, stepMs = 100): Promise<number> {
  const started = Date.now();
  while (!(await test())) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(stepMs);
  }
  return Date.now() - started;
}

export interface Rig {
  readonly dir: string;
  readonly path: string;
  readonly env: Record<string, string>;
  companyId: string;
  key: string;
  run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }>;
  json(args: string[]): Promise<any>;
  campaign(args: string[]): Promise<string>;
  serve(): Promise<ServerProcess>;
  dialer(args: string[]): DialerProcess;
  /** a read-only connection of the test's own, for checking what the processes wrote */
  read(): BetterSqlite3.Database;
  /** the campaign's attempts, counted through read() */
  attempts(campaignId: string): number;
  createLead(server: ServerProcess, body: Record<string, unknown>): Promise<number>;
  close(): Promise<void>;
}

export async function rig(opts: { company?: boolean } = {}): Promise<Rig> {
  const dir = mkdtempSync(join(tmpdir(), 'leadline-sqlite-rig-'));
  const path = join(dir, 'leadline.db');
  const env = { DATABASE_URL: `sqlite:${path}`, LOG_LEVEL: 'info', ...LIMITS };
  const servers: ServerProcess[] = [];
  const dialers: DialerProcess[] = [];
  let reader: BetterSqlite3.Database | undefined;
  const r: Rig = {
    dir,
    path,
    env,
    companyId: '',
    key: '',
    run: (args) => cli(args, env),
    async json(args) {
      const out = await cli([...args, '--json'], env);
      if (out.code !== 0) throw new Error(`leadline ${args.join(' ')} failed (${out.code}):\n${out.stderr}`);
      return JSON.parse(out.stdout);
    },
    async campaign(args) {
      return (await r.json(['campaign', 'create', '--company', r.companyId, '--name', 'c', ...args])).campaignId;
    },
    async serve() {
      const s = await startServerProcess({ ...env, LOG_LEVEL: 'warn' });
      servers.push(s);
      return s;
    },
    dialer(args) {
      const d = startDialer(args, env);
      dialers.push(d);
      return d;
    },
    read() {
      reader ??= openSqliteFile(path, { readonly: true });
      return reader;
    },
    attempts(campaignId) {
      return (r.read().prepare('select count(*) as n from attempts where campaign_id = ?').get(campaignId) as { n: number }).n;
    },
    async createLead(server, body) {
      const res = await fetch(`${server.url}/api/v1/leads`, {
        method: 'POST',
        headers: { 'x-api-key': r.key, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      await res.text();
      return res.status;
    },
    async close() {
      reader?.close();
      for (const d of dialers) if (d.child.exitCode === null && d.child.signalCode === null) d.child.kill('SIGKILL');
      for (const s of servers) if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGKILL');
      await Promise.all([...dialers.map((d) => d.exited), ...servers.map((s) => s.exited)]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
  if (opts.company !== false) {
    const m = await r.run(['migrate']);
    if (m.code !== 0) throw new Error(`leadline migrate failed:\n${m.stderr}`);
    r.companyId = (await r.json(['company', 'create', '--name', 'rig'])).companyId;
    r.key = (await r.json(['key', 'create', '--company', r.companyId, '--scope', 'write', '--name', 'w'])).key;
  }
  return r;
}

/** a campaign that may call at any hour, anyone, anywhere (the tests run at any time of day) */
export const ALWAYS = ['--hours', 'mon-sun 00:00-24:00', '--local-window', '00:00-24:00', '--regional-rules', 'off'];
