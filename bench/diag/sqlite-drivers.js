#!/usr/bin/env node
/**
 * The embedded SQLite drivers side by side on leadline's own statements
 * (docs/runtimes.md): leadline's driver on the running Node, and node:sqlite
 * where it runs unflagged, each through Kysely exactly as leadline runs them (dist/db/sqlite-driver.js, statement
 * cache included) and raw (the same SQL text and parameters, captured from
 * Kysely, on the driver's own prepared statement).
 *
 *   bulk 1000    src/store/sqlite/leads.ts insertMany: INSERT … SELECT … FROM
 *                json_each(?) … ON CONFLICT DO NOTHING RETURNING id, 1000 new leads
 *   list 8000    listPage: one page of 8000 leads as JSON built by SQLite
 *   lookup       exists(): one lead by (campaign_id, external_id), unique index
 *   write tx     BEGIN IMMEDIATE, insertOne, COMMIT (WAL, synchronous=NORMAL)
 *
 * A round is one process with every driver's connection open on one database
 * file, the drivers taking turns batch by batch (inTurns); ROUNDS rounds, the
 * drivers' order reversed every other round. The table shows the median of
 * the rounds' medians (and their range).
 * Usage: npm run build && node bench/diag/sqlite-drivers.js [rounds]
 *        (run it with each Node binary to compare runtimes)
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Kysely, SqliteDialect, sql } from 'kysely';
import { createCampaign, createCompany } from '../../dist/campaigns/service.js';
import { openSqliteConnection, sqliteDriver } from '../../dist/db/sqlite-driver.js';
import { openStore } from '../../dist/store/index.js';
import { SqliteLeadStore } from '../../dist/store/sqlite/leads.js';

const SELF = fileURLToPath(import.meta.url);
const require = createRequire(import.meta.url);

/**
 * node:sqlite opened as leadline opens SQLite (dist/db/sqlite-driver.js: the
 * same pragmas and statement cache), for the comparison only. Kysely's
 * SqliteDialect cannot drive DatabaseSync as it is: it reads `stmt.reader`,
 * which StatementSync lacks (columns(), Node >= 22.16, tells the same), and
 * passes the parameters as one array, which StatementSync takes as named
 * parameters ('0', '1', …). cache_size: better-sqlite3 is built with a 16 MB
 * page cache, Node's SQLite with 2 MB.
 */
function openNodeSqlite(path) {
  const { DatabaseSync } = require('node:sqlite');
  const raw = new DatabaseSync(path);
  for (const p of ['journal_mode = WAL', 'synchronous = NORMAL', 'busy_timeout = 5000', 'foreign_keys = ON', 'cache_size = -16000']) {
    raw.exec(`pragma ${p}`);
  }
  const cache = new Map();
  return {
    raw,
    close: () => raw.close(),
    prepare(text) {
      let statement = cache.get(text);
      if (statement === undefined) {
        const s = raw.prepare(text);
        statement = { reader: s.columns().length > 0, all: (p) => s.all(...p), run: (p) => s.run(...p), iterate: (p) => s.iterate(...p) };
        cache.set(text, statement);
      }
      return statement;
    },
  };
}

/** leadline's driver on this Node, and node:sqlite where it runs unflagged and has columns() */
function drivers() {
  const out = [sqliteDriver];
  try {
    if (typeof new (require('node:sqlite').DatabaseSync)(':memory:').prepare('select 1').columns === 'function') out.push('node:sqlite');
  } catch {}
  return out;
}
// [batches, calls per batch]
const ITERATIONS = { bulk: [12, 4], list: [12, 3], lookup: [12, 500], tx: [12, 100] };

let serial = 0;
function newLeads(n) {
  const leads = new Array(n);
  for (let i = 0; i < n; i++) {
    const k = `${process.pid}-${serial++}`;
    leads[i] = {
      id: `ld_${k}`,
      phoneNumber: `+1${2_000_000_000 + serial}`,
      externalId: `crm-${k}`,
      metadata: JSON.stringify({ name: `Lead ${k}`, company: 'Acme Corp', notes: 'met at the spring expo' }),
      scheduledFor: serial % 4 === 0 ? '2030-01-02T02:04:05.000Z' : null,
      priority: serial % 101,
    };
  }
  return leads;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/**
 * Each variant (a driver through Kysely, or raw) in batches of `batch` calls,
 * taking turns batch by batch, so that all of them see the same table, WAL and
 * heap, and whatever else runs on the machine disturbs them alike. A batch's
 * CPU time (user + system, all threads) and wall time per call; the medians
 * over `batches` batches, after one warm-up batch each. CPU time is what a
 * shared machine disturbs least; wall time adds what the process waited for.
 */
async function inTurns(batches, batch, variants) {
  const samples = variants.map(() => []);
  let i = 0;
  for (let b = 0; b <= batches; b++) {
    for (const [j, fn] of variants.entries()) {
      const cpu0 = process.cpuUsage();
      const t0 = process.hrtime.bigint();
      for (let k = 0; k < batch; k++) await fn(i++);
      const wall = Number(process.hrtime.bigint() - t0) / 1000 / batch;
      const { user, system } = process.cpuUsage(cpu0);
      if (b > 0) samples[j].push({ cpu: (user + system) / batch, wall });
    }
  }
  return samples.map((xs) => ({ cpu: median(xs.map((x) => x.cpu)), wall: median(xs.map((x) => x.wall)) }));
}

/** one driver's connection to the file: through Kysely, and raw */
function connect(driver, path) {
  let seen = null; // statements sent, while capturing
  const database = driver === 'node:sqlite' ? openNodeSqlite(path) : openSqliteConnection(path);
  const { raw } = database;
  const kysely = new Kysely({
    dialect: new SqliteDialect({ database }),
    log: (e) => seen?.push({ sql: e.query.sql, parameters: e.query.parameters }),
  });
  /** the statement Kysely sent for fn, prepared once on the raw connection */
  const capture = async (fn) => {
    seen = [];
    await fn();
    const [{ sql: text, parameters }] = seen;
    seen = null;
    return { stmt: raw.prepare(text), parameters };
  };
  const version = raw.prepare('select sqlite_version() as v').get().v;
  const stat4 = raw
    .prepare('pragma compile_options')
    .all()
    .some((r) => r.compile_options === 'ENABLE_STAT4');
  return { driver, kysely, leads: new SqliteLeadStore(kysely), raw, capture, version, stat4 };
}

/** [kysely, raw] of every connection, flattened for inTurns, and the results back by name */
async function workload(name, conns, spec, make) {
  const variants = [];
  for (const c of conns) variants.push(...(await make(c)));
  const results = await inTurns(...spec, variants);
  conns.forEach((c, k) => {
    c.out[`${name}, kysely`] = results[2 * k];
    c.out[`${name}, raw`] = results[2 * k + 1];
  });
}

async function measure(drivers) {
  const dir = mkdtempSync(join(tmpdir(), 'leadline-drivers-'));
  const path = join(dir, 'bench.db');
  try {
    // schema, company and campaigns from leadline's own code, on leadline's driver
    const setup = openStore({ kind: 'sqlite', path });
    await setup.migrate();
    const { companyId } = await createCompany(setup, 'Drivers');
    const campaign = async (name) => (await createCampaign(setup, { companyId, name })).campaignId;
    const [bulkC, listC, txC] = [await campaign('bulk'), await campaign('list'), await campaign('tx')];
    for (let i = 0; i < 9; i++) await setup.leads.insertMany(listC, newLeads(1000), Date.now());
    const externalIds = (await sql`select external_id from leads where campaign_id = ${listC}`.execute(setup.kysely)).rows.map(
      (r) => r.external_id,
    );
    await setup.close();

    const conns = drivers.map((d) => ({ ...connect(d, path), out: {} }));

    await workload('bulk 1000', conns, ITERATIONS.bulk, async ({ leads, capture }) => {
      const bulk = await capture(() => leads.insertMany(bulkC, newLeads(1000), Date.now()));
      return [
        () => leads.insertMany(bulkC, newLeads(1000), Date.now()),
        () => {
          const p = [...bulk.parameters];
          p[p.length - 1] = JSON.stringify(newLeads(1000)); // json_each(?) is the last parameter
          if (bulk.stmt.all(...p).length !== 1000) throw new Error('bulk: not 1000 ids returned');
        },
      ];
    });

    await workload('list 8000', conns, ITERATIONS.list, async ({ leads, capture }) => {
      const list = await capture(() => leads.listPage(listC, undefined, 0, 8000));
      return [
        async () => {
          const page = await leads.listPage(listC, undefined, 0, 8000);
          if (page.n !== 8000 || !page.more) throw new Error('list: not a full page');
        },
        () => list.stmt.get(...list.parameters),
      ];
    });

    await workload('lookup', conns, ITERATIONS.lookup, async ({ leads, capture }) => {
      const lookup = await capture(() => leads.exists(listC, { externalId: externalIds[0] }));
      return [
        async (i) => {
          if (!(await leads.exists(listC, { externalId: externalIds[i % externalIds.length] }))) throw new Error('lookup: missing');
        },
        (i) => {
          const p = [...lookup.parameters];
          p[p.length - 1] = externalIds[i % externalIds.length];
          if (lookup.stmt.get(...p) === undefined) throw new Error('lookup: missing');
        },
      ];
    });

    await workload('write tx', conns, ITERATIONS.tx, async ({ kysely, leads, raw, capture }) => {
      // as src/db/sqlite.ts writeTx runs a write: BEGIN IMMEDIATE … COMMIT on the one connection
      const writeTx = (fn) =>
        kysely.connection().execute(async (conn) => {
          await sql`begin immediate`.execute(conn);
          await fn(conn);
          await sql`commit`.execute(conn);
        });
      const one = await capture(() => leads.insertOne(txC, newLeads(1)[0], Date.now()));
      const [begin, commit] = [raw.prepare('begin immediate'), raw.prepare('commit')];
      return [
        () => writeTx((conn) => new SqliteLeadStore(conn).insertOne(txC, newLeads(1)[0], Date.now())),
        () => {
          const [l] = newLeads(1);
          const p = [...one.parameters];
          p[0] = l.id;
          p[2] = l.phoneNumber;
          p[3] = l.externalId;
          begin.run();
          if (one.stmt.all(...p).length !== 1) throw new Error('write tx: not inserted');
          commit.run();
        },
      ];
    });

    for (const c of conns) await c.kysely.destroy();
    return conns.map(({ driver, version, stat4, out }) => ({ driver, sqlite: version, stat4, out }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv.includes('--round')) {
  // one round: every driver in this process, in the order given
  const order = process.argv.slice(process.argv.indexOf('--round') + 1);
  process.stdout.write(JSON.stringify(await measure(order)) + '\n');
} else {
  const rounds = Number(process.argv[2] ?? 5);
  const all = drivers();
  const runs = Object.fromEntries(all.map((d) => [d, []]));
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 ? [...all].reverse() : all;
    const results = JSON.parse(execFileSync(process.execPath, [SELF, '--round', ...order], { encoding: 'utf8' }));
    for (const x of results) runs[x.driver].push(x);
  }
  console.log(`Node ${process.version}, ${rounds} rounds; µs per operation: CPU (wall), median of the rounds' medians [range of CPU]`);
  for (const d of all) {
    const { sqlite, stat4 } = runs[d][0];
    console.log(`\n${d} (SQLite ${sqlite}${stat4 ? ', STAT4' : ''})`);
    for (const name of Object.keys(runs[d][0].out)) {
      const cpu = runs[d].map((x) => x.out[name].cpu);
      const wall = median(runs[d].map((x) => x.out[name].wall));
      console.log(
        `  ${name.padEnd(18)} ${median(cpu).toFixed(1).padStart(8)} (${wall.toFixed(1)})  [${Math.min(...cpu).toFixed(1)}-${Math.max(...cpu).toFixed(1)}]`,
      );
    }
  }
}
