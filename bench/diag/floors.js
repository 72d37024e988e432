#!/usr/bin/env node
/**
 * Every form of the floor (bench/floor/sqlite.js, postgres.js), measured
 * against each other over HTTP with the bench's own client: one floor process
 * per form, each on its own campaign of the same fresh database, interleaved
 * round by round so that drift on a shared machine lands on all of them. The
 * figures of BENCHMARKS.md "The floors" come from here; the default form of
 * each is the fastest.
 *
 *   node bench/diag/floors.js [--stores=sqlite,postgres] [--parts=bulk,list,small]
 *     [--rounds=6] [--per-round=10] [--forms=a,b] [--pg-pools=4,10] [--seed]   (--seed: the 1.1M leads a full run
 *     seeds for rows 4 and 7 are there first, as they are when rows 1-3 run)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bulkBody, singleBody } from '../lib/data.js';
import { expectStatus, median, percentile, sequential, throughput } from '../lib/load.js';
import pg from 'pg';
import { cpuMs, killAll, startFloor } from '../lib/procs.js';
import { createStore, pgAvailable, seedLeads } from '../lib/stores.js';
import { check, fetchText } from '../rows/checks.js';

const argv = process.argv.slice(2);
const option = (name, dflt) => argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? dflt;
const stores = option('stores', 'sqlite,postgres').split(',');
const parts = option('parts', 'bulk,list,small').split(',');
const only = option('forms')?.split(',');
const rounds = Number(option('rounds', 6));
const perRound = Number(option('per-round', 10));
const BULK = 1000;
const LIST = 8000;

const FORMS = {
  sqlite: {
    bulk: ['values', 'values-notexists', 'values-adaptive', 'values-lookup', 'values-jsonlookup', 'values-grouplookup', 'json', 'rows-tx'],
    list: ['rowjson', 'db', 'rows'],
  },
  postgres: {
    bulk: ['json-adaptive', 'json-lookup', 'json-notexists', 'json', 'unnest-adaptive', 'unnest', 'values', 'copy'],
    list: ['rowjson', 'arrays', 'rows', 'db'],
  },
};
const BULK_PATH = '/api/v1/leads/bulk';
const tmp = mkdtempSync(join(tmpdir(), 'leadline-floors-'));
const fmt = (v) => (v < 10 ? v.toFixed(2) : v.toFixed(1));

/**
 * On PostgreSQL each floor connects as its own application_name, so that the
 * CPU of its backends can be added to its own: CPU per request is steadier
 * than time on a shared machine, and the database's share counts.
 */
let admin = null;
async function backendCpuMs(name) {
  if (admin === null) return 0;
  const { rows } = await admin.query('select pid from pg_stat_activity where application_name = $1', [name]);
  return rows.reduce((total, r) => total + cpuMs(r.pid), 0);
}
function floorUrl(store, name) {
  if (store.kind !== 'postgres') return store.url;
  const u = new URL(store.url);
  u.searchParams.set('application_name', name);
  return u.toString();
}
async function startForm(store, name, env) {
  const srv = await startFloor(floorUrl(store, name), join(tmp, `${name}.log`), env);
  return { ...srv, cpuMs: async () => srv.cpuMs() + (await backendCpuMs(name)) };
}
const withCpu = (srv, fn) => async () => {
  const c0 = await srv.cpuMs();
  const s = await fn();
  return { ...s, cpuMs: (await srv.cpuMs()) - c0 };
};

/** `sides`: [label, server, make][]; each round runs every side once, in an order that turns round by round */
async function rotate(sides) {
  const out = sides.map(() => ({ ms: [], cpu: 0, statuses: new Map() }));
  for (let r = 0; r < rounds; r++) {
    const order = sides.map((_, i) => (i + r) % sides.length);
    for (const i of r % 2 ? order.reverse() : order) {
      const [, srv, make] = sides[i];
      const s = await withCpu(srv, () => sequential(srv.url, make, perRound))();
      out[i].ms.push(...s.ms);
      out[i].cpu += s.cpuMs;
      for (const [k, v] of s.statuses) out[i].statuses.set(k, (out[i].statuses.get(k) ?? 0) + v);
    }
  }
  return out;
}

function print(title, sides, results) {
  const best = Math.min(...results.map((r) => median(r.ms)));
  console.log(`\n${title}`);
  for (const [i, [label]] of sides.entries()) {
    const r = results[i];
    console.log(
      `  ${label.padEnd(20)} median ${fmt(median(r.ms)).padStart(6)} ms  p99 ${fmt(percentile(r.ms, 99)).padStart(6)} ms  ` +
        `${(median(r.ms) / best).toFixed(2)}× the fastest  CPU ${fmt(r.cpu / r.ms.length)} ms/request`,
    );
  }
}

async function bulkPart(kind, store) {
  const sides = [];
  const sent = new Map();
  for (const form of FORMS[kind].bulk.filter((f) => !only || only.includes(f))) {
    const srv = await startForm(store, `floor-bulk-${form}`, { FLOOR_BULK: form });
    const campaign = await store.campaign(`bulk ${form}`);
    sent.set(form, []);
    const fresh = () => {
      const body = bulkBody(campaign, BULK);
      sent.get(form).push(body);
      return { method: 'POST', path: BULK_PATH, body };
    };
    // as the harness checks: created, then skipped, naming the same identifier
    const body = fresh().body;
    const post = async () => {
      const res = await fetchText(srv.url + BULK_PATH, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      check(`${kind} ${form}`, res.status === 200, res.text);
      return JSON.parse(res.text).data;
    };
    const [first, second] = [await post(), await post()];
    check(
      `${kind} ${form}`,
      first.created === BULK && second.skipped === BULK && second.skippedIdentifiers[0] === JSON.parse(body).leads[0].externalId,
      'create then skip',
    );
    await sequential(srv.url, fresh, 3);
    sides.push([form, srv, fresh]);
  }
  const created = await rotate(sides);
  created.forEach((r) => {
    expectStatus('bulk', r.statuses, 200);
  });
  print(`${kind}: bulk create ${BULK} new leads`, sides, created);
  const again = sides.map(([form, srv]) => {
    let i = 0;
    return [form, srv, () => ({ method: 'POST', path: BULK_PATH, body: sent.get(form)[i++ % sent.get(form).length] })];
  });
  const dup = await rotate(again);
  dup.forEach((r) => {
    expectStatus('bulk', r.statuses, 200);
  });
  print(`${kind}: bulk create ${BULK} duplicates`, again, dup);
  for (const [, srv] of sides) await srv.stop();
}

async function listPart(kind, store) {
  const campaign = await store.campaign('list');
  const sides = [];
  for (const form of FORMS[kind].list.filter((f) => !only || only.includes(f))) {
    sides.push([form, await startForm(store, `floor-list-${form}`, { FLOOR_LIST: form }), null]);
  }
  for (let n = 0; n < LIST; n += BULK) {
    await fetchText(sides[0][1].url + BULK_PATH, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: bulkBody(campaign, BULK),
    });
  }
  const path = `/api/v1/leads?campaignId=${campaign}&limit=${LIST}`;
  const bodies = await Promise.all(sides.map(([, srv]) => fetchText(srv.url + path)));
  check(`${kind} list`, JSON.parse(bodies[0].text).data.count === LIST, 'page size');
  for (const [i, [form]] of sides.entries())
    check(`${kind} list`, bodies[i].text === bodies[0].text, `${form} returns other bytes than ${sides[0][0]}`);
  for (const side of sides) side[2] = () => ({ path });
  for (const [, srv, make] of sides) await sequential(srv.url, make, 5);
  print(`${kind}: list page of ${LIST}`, sides, await rotate(sides));
  for (const [, srv] of sides) await srv.stop();
}

/** row 5: the constant body of the old floor against one statement per request, 50 connections */
async function smallPart(kind, store) {
  const campaign = await store.campaign('small');
  // PostgreSQL: one statement floor per pool size (--pg-pools=4,10)
  const pools = kind === 'postgres' ? option('pg-pools', '4').split(',') : [''];
  const statementFloors = [];
  for (const size of pools) {
    const env = size ? { FLOOR_PG_POOL: size } : {};
    statementFloors.push([size ? `statement, pool ${size}` : 'one statement', await startForm(store, `floor-small-statement${size}`, env)]);
  }
  const withDb = statementFloors[0][1];
  await fetchText(withDb.url + BULK_PATH, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: bulkBody(campaign, 10),
  });
  const listOne = () => ({ path: `/api/v1/leads?campaignId=${campaign}&limit=1` });
  const createOne = () => ({ method: 'POST', path: '/api/v1/leads', body: singleBody(campaign) });
  const get = await fetchText(withDb.url + listOne().path);
  const post = await fetchText(withDb.url + '/api/v1/leads', { method: 'POST', body: createOne().body });
  const constant = await startForm(store, 'floor-small-constant', {
    FLOOR_SMALL: JSON.stringify({ GET: [Buffer.byteLength(get.text), 200], POST: [Buffer.byteLength(post.text), 201] }),
  });
  for (const [label, make, want] of [
    ['list limit=1', listOne, 200],
    ['single create', createOne, 201],
  ]) {
    const sides = [['constant body', constant], ...statementFloors];
    const totals = sides.map(() => ({ answered: 0, seconds: 0, cpu: 0 }));
    for (const [, srv] of sides) await throughput(srv.url, make, { connections: 50, seconds: 1 });
    for (let r = 0; r < Math.max(2, Math.round(rounds / 2)); r++) {
      for (const [i, [, srv]] of r % 2 ? [...sides.entries()].reverse() : [...sides.entries()]) {
        const c0 = await srv.cpuMs();
        const res = await throughput(srv.url, make, { connections: 50, seconds: 1.5 });
        expectStatus(label, res.statuses, want);
        totals[i].answered += res.answered;
        totals[i].seconds += res.seconds;
        totals[i].cpu += (await srv.cpuMs()) - c0;
      }
    }
    console.log(`\n${kind}: ${label}, 50 connections`);
    for (const [i, [name]] of sides.entries()) {
      const t = totals[i];
      console.log(
        `  ${name.padEnd(20)} ${Math.round(t.answered / t.seconds)
          .toLocaleString('en-US')
          .padStart(7)} req/s  CPU ${((t.cpu * 1000) / t.answered).toFixed(0)} µs/request`,
      );
    }
  }
  await constant.stop();
  for (const [, srv] of statementFloors) await srv.stop();
}

try {
  for (const kind of stores) {
    if (kind === 'postgres' && !(await pgAvailable())) {
      console.log('PostgreSQL not reachable: skipped');
      continue;
    }
    const store = await createStore(kind, tmp);
    if (kind === 'postgres') {
      admin = new pg.Client({ connectionString: store.url });
      await admin.connect();
    }
    try {
      if (argv.includes('--seed')) {
        await seedLeads(store, [
          { campaignId: await store.campaign('million'), n: 1_000_000 },
          { campaignId: await store.campaign('later'), n: 100_000 },
        ]);
      }
      // store.db stays open, idle, for the campaigns each part creates
      if (parts.includes('bulk')) await bulkPart(kind, store);
      if (parts.includes('list')) await listPart(kind, store);
      if (parts.includes('small')) await smallPart(kind, store);
    } finally {
      await admin?.end();
      admin = null;
      await store.db.close();
      await store.drop();
    }
  }
} finally {
  killAll();
  rmSync(tmp, { recursive: true, force: true });
}
