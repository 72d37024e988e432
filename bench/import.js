#!/usr/bin/env node
/**
 * `npm run bench:import`: how fast `leadline import` loads a CSV through a
 * running `leadline serve` (both from dist/, over HTTP on 127.0.0.1), on a
 * fresh database per run. Prints one Markdown table; docs/integrators.md
 * quotes it.
 *
 *   --rows=N              CSV size (default 100000)
 *   --stores=a,b          sqlite and/or postgres (default: sqlite, plus postgres when reachable)
 *   --default-limits      also run under the default rate limits (10 bulk requests per minute:
 *                         100,000 rows take about 9 minutes, by design)
 *   --only-default-limits skip the unlimited runs
 */
import { spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { createKey } from '../dist/auth/service.js';
import { createCampaign, createCompany } from '../dist/campaigns/service.js';
import { openStore } from '../dist/store/index.js';

const BIN = fileURLToPath(new URL('../bin/leadline.js', import.meta.url));
const PG_ADMIN = process.env.TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const argv = process.argv.slice(2);
const option = (name) => argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
const flag = (name) => argv.includes(`--${name}`);
const ROWS = Number(option('rows') ?? 100_000);
const UNLIMITED = { RATE_LIMIT_PER_MINUTE: '1000000', RATE_LIMIT_PER_HOUR: '1000000', RATE_LIMIT_BULK_PER_MINUTE: '1000000' };

const tmp = mkdtempSync(join(tmpdir(), 'leadline-bench-import-'));
const log = (msg) => process.stderr.write(`${msg}\n`);

function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

async function pgReachable() {
  const client = new pg.Client({ connectionString: PG_ADMIN, connectionTimeoutMillis: 1000 });
  try {
    await client.connect();
    await client.end();
    return true;
  } catch {
    return false;
  }
}

async function adminQuery(text) {
  const client = new pg.Client({ connectionString: PG_ADMIN });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/** a fresh database with one campaign and a write key */
async function freshStore(kind, n) {
  let url;
  let drop = async () => {};
  if (kind === 'sqlite') {
    url = `sqlite:${join(tmp, `bench-${n}.db`)}`;
  } else {
    const name = `leadline_bench_import_${process.pid}_${n}`;
    await adminQuery(`create database ${name}`);
    const u = new URL(PG_ADMIN);
    u.pathname = `/${name}`;
    url = u.toString();
    drop = () => adminQuery(`drop database if exists ${name} with (force)`);
  }
  const db = openStore(kind === 'sqlite' ? { kind, path: url.slice('sqlite:'.length) } : { kind, url });
  await db.migrate();
  const { companyId } = await createCompany(db, 'Bench');
  const { campaignId } = await createCampaign(db, { companyId, name: 'Import' });
  const { key } = await createKey(db, { companyId, name: 'bench', scope: 'write' });
  await db.close();
  return { url, campaignId, key, drop };
}

async function startServer(env) {
  const port = await freePort();
  const child = spawn(process.execPath, [BIN, 'serve'], {
    env: { ...process.env, LOG_LEVEL: 'warn', HOST: '127.0.0.1', PORT: String(port), ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 150; i++) {
    try {
      if ((await fetch(`${url}/api/health`)).ok) {
        const stop = () =>
          new Promise((r) => {
            child.once('exit', r);
            child.kill('SIGTERM');
          });
        return { url, stop };
      }
    } catch {}
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error('server did not start');
}

function writeCsv(path, rows) {
  writeFileSync(path, 'phoneNumber,externalId,priority,name,city\n');
  for (let from = 1; from <= rows; from += 100_000) {
    const lines = [];
    for (let i = from; i < Math.min(from + 100_000, rows + 1); i++) {
      lines.push(`+1415${String(i).padStart(7, '0')},crm-${i},${i % 101},Lead ${i},City ${i % 50}\n`);
    }
    appendFileSync(path, lines.join(''));
  }
}

/** the process's resident-memory high-water mark (VmHWM), in MB, or NaN where /proc has none */
function peakRssMb(pid) {
  try {
    const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Number(kb) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

/** runs `leadline import` as users do; reports its wall time and its peak RSS (polled: the last reading before it exits) */
function importCsv(file, server, store) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(
      process.execPath,
      [BIN, 'import', file, '--campaign', store.campaignId, '--url', server.url, '--key', store.key, '--json', '--restart'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    let rssMb = NaN;
    const poll = setInterval(() => {
      const now = peakRssMb(child.pid);
      if (!Number.isNaN(now)) rssMb = now;
    }, 100);
    child.once('exit', (code) => {
      clearInterval(poll);
      if (code !== 0) return reject(new Error(`import failed: ${stderr}`));
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      resolve({ seconds, rssMb, summary: JSON.parse(stdout) });
    });
  });
}

const stores = option('stores')?.split(',') ?? ['sqlite', ...((await pgReachable()) ? ['postgres'] : [])];
const runs = [
  ...(flag('only-default-limits') ? [] : stores.map((kind) => ({ kind, limits: 'none', env: UNLIMITED }))),
  ...(flag('default-limits') || flag('only-default-limits') ? [{ kind: 'sqlite', limits: 'default (10 bulk/min)', env: {} }] : []),
];

const file = join(tmp, 'leads.csv');
writeCsv(file, ROWS);
const fileMb = statSync(file).size / 1024 / 1024;
log(`${ROWS} rows in ${file} (${fileMb.toFixed(0)} MB)`);
const results = [];
try {
  for (const [n, run] of runs.entries()) {
    const store = await freshStore(run.kind, n);
    const server = await startServer({ DATABASE_URL: store.url, ...run.env });
    try {
      log(`importing into ${run.kind}, rate limits: ${run.limits}…`);
      const { seconds, rssMb, summary } = await importCsv(file, server, store);
      if (summary.created !== ROWS) throw new Error(`expected ${ROWS} created, got ${JSON.stringify(summary)}`);
      results.push({ ...run, seconds, rssMb, rate: ROWS / seconds });
      log(`  ${seconds.toFixed(1)} s, ${Math.round(ROWS / seconds)} rows/s, importer peak RSS ${rssMb.toFixed(0)} MB`);
    } finally {
      await server.stop();
      await store.drop();
    }
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}

console.log(`| store | rate limits | rows (file) | wall time | rows/s | importer peak RSS |`);
console.log(`|---|---|---:|---:|---:|---:|`);
for (const r of results) {
  console.log(
    `| ${r.kind} | ${r.limits} | ${ROWS.toLocaleString('en')} (${fileMb.toFixed(0)} MB) | ${r.seconds.toFixed(1)} s | ` +
      `${Math.round(r.rate).toLocaleString('en')} | ${r.rssMb.toFixed(0)} MB |`,
  );
}
