/**
 * The peer rows: Directus over SQLite, a product people pick to get a REST API
 * over a table, driven by the same client as leadline over the same kind of
 * data. Runs only when `npm install` has been run in this folder (see
 * README.md); it never touches leadline's own dependencies. Directus needs
 * Node 22, which comes from npm as the `node` package installed here.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { lead } from '../../lib/data.js';
import { expectStatus, median, percentile, sequential } from '../../lib/load.js';
import { freePort } from '../../lib/procs.js';
import { fmtMs, fmtRatio } from '../../lib/stats.js';

const HERE = fileURLToPath(new URL('.', import.meta.url));
const NODE22 = join(HERE, 'node_modules', 'node', 'bin', 'node');
const CLI = join(HERE, 'node_modules', 'directus', 'cli.js');
export const VERSION = existsSync(join(HERE, 'node_modules', 'directus', 'package.json'))
  ? JSON.parse(readFileSync(join(HERE, 'node_modules', 'directus', 'package.json'), 'utf8')).version
  : null;

export const installed = () => existsSync(NODE22) && existsSync(CLI);

const TOKEN = 'bench-admin-token-0123456789';

function directus(args, env, logFile) {
  const out = openSync(logFile, 'a');
  return spawn(NODE22, [CLI, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', out, out] });
}

/** the last lines of a log, for an error message (the run's temp folder is removed at the end) */
const tail = (file) => readFileSync(file, 'utf8').trim().split('\n').slice(-3).join(' / ');

const exited = (child) => new Promise((resolve) => child.once('exit', (code) => resolve(code)));

async function api(url, method, path, body) {
  const res = await fetch(url + path, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`Directus ${method} ${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

/** the leads collection, with the columns a lead has */
async function createCollection(url) {
  const field = (name, type, schema = {}) => ({ field: name, type, schema, meta: {} });
  await api(url, 'POST', '/collections', {
    collection: 'leads',
    schema: {},
    meta: {},
    fields: [
      { field: 'id', type: 'integer', meta: { hidden: true, readonly: true }, schema: { is_primary_key: true, has_auto_increment: true } },
      field('campaignId', 'string'),
      field('phoneNumber', 'string'),
      field('externalId', 'string'),
      field('metadata', 'json'),
      field('status', 'string', { default_value: 'raw' }),
      field('scheduledFor', 'string'),
      field('priority', 'integer', { default_value: 0 }),
      field('attempts', 'integer', { default_value: 0 }),
    ],
  });
}

/**
 * Peer rows beside leadline's: batch create of `sizes.bulk` items and a read of
 * `sizes.list` items, each against the floor measured for leadline's own row.
 * @param {{ log: (m: string) => void, tmp: string, sizes: any, floors: { bulk?: number[], list?: number[] } }} ctx
 */
export async function runPeer({ log, tmp, sizes, floors }) {
  const dir = join(tmp, 'directus');
  for (const sub of ['uploads', 'extensions']) mkdirSync(join(dir, sub), { recursive: true });
  const logFile = join(dir, 'directus.log');
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const env = {
    HOST: '127.0.0.1',
    PORT: String(port),
    PUBLIC_URL: url,
    DB_CLIENT: 'sqlite3',
    DB_FILENAME: join(dir, 'directus.db'),
    KEY: 'bench-key',
    SECRET: 'bench-secret-bench-secret-bench-secret',
    ADMIN_EMAIL: 'admin@example.com',
    ADMIN_PASSWORD: 'bench-password',
    ADMIN_TOKEN: TOKEN,
    TELEMETRY: 'false',
    LOG_LEVEL: 'warn',
    CACHE_ENABLED: 'false',
    RATE_LIMITER_ENABLED: 'false',
    WEBSOCKETS_ENABLED: 'false',
    MAX_PAYLOAD_SIZE: '10mb',
    QUERY_LIMIT_MAX: '-1',
    STORAGE_LOCAL_ROOT: join(dir, 'uploads'),
    EXTENSIONS_PATH: join(dir, 'extensions'),
  };
  log(`peer: Directus ${VERSION} bootstrap (Node 22 from npm)`);
  const boot = directus(['bootstrap'], env, logFile);
  if ((await exited(boot)) !== 0) throw new Error(`Directus bootstrap failed: ${tail(logFile)}`);
  const server = directus(['start'], env, logFile);
  const stopped = exited(server);
  try {
    const deadline = Date.now() + 120_000;
    for (;;) {
      if (server.exitCode !== null) throw new Error(`Directus exited: ${tail(logFile)}`);
      try {
        if ((await fetch(`${url}/server/ping`)).ok) break;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) throw new Error(`Directus did not start within 120 s: ${tail(logFile)}`);
      await new Promise((r) => setTimeout(r, 250));
    }
    await createCollection(url);
    const H = { authorization: `Bearer ${TOKEN}` };
    let n = 50_000_000;
    const batch = () => {
      const items = [];
      for (let i = 0; i < sizes.bulk; i++) items.push({ campaignId: 'bench', ...lead(n++) });
      return { method: 'POST', path: '/items/leads', headers: H, body: JSON.stringify(items) };
    };
    log(`peer: Directus batch create ${sizes.bulk}`);
    await sequential(url, batch, 2);
    const perRound = Math.max(2, Math.round((sizes.rounds * sizes.perRound) / 4));
    const created = await sequential(url, batch, perRound);
    expectStatus('Directus batch create', created.statuses, 200);
    while ((n - 50_000_000) < sizes.list) await sequential(url, batch, 1);
    log(`peer: Directus read ${sizes.list}`);
    const read = () => ({ path: `/items/leads?limit=${sizes.list}`, headers: H });
    const first = await (await fetch(url + read().path, { headers: H })).json();
    if (first.data?.length !== sizes.list) throw new Error(`Directus read returned ${first.data?.length} items`);
    await sequential(url, read, 2);
    const reads = await sequential(url, read, perRound);
    expectStatus('Directus read', reads.statuses, 200);
    const row = (name, ms, floor, measured) => ({
      n: 9,
      name,
      store: 'SQLite',
      leadline: fmtMs(median(ms)),
      p99: fmtMs(percentile(ms, 99)),
      floor: floor ? fmtMs(median(floor)) : '–',
      floorP99: floor ? fmtMs(percentile(floor, 99)) : '',
      ratio: floor ? fmtRatio(median(ms) / median(floor)) : '',
      met: null,
      note: `Directus ${VERSION} on Node 22; ${ms.length} requests; measured elsewhere: ${measured}`,
    });
    return [
      row(`peer: Directus batch create ${sizes.bulk}`, created.ms, floors.bulk, '1.2-3.2 s'),
      row(`peer: Directus read ${sizes.list}`, reads.ms, floors.list, '215-258 ms'),
    ];
  } finally {
    server.kill('SIGTERM');
    const timer = setTimeout(() => server.kill('SIGKILL'), 10_000);
    await stopped;
    clearTimeout(timer);
  }
}
