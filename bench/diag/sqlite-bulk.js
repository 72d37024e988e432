#!/usr/bin/env node
/**
 * Where a SQLite bulk create's statement time goes, in-process, without HTTP:
 * the floor's one multi-row INSERT in autocommit against the same INSERT in a
 * write transaction, leadline's chunked statements (src/store/sqlite/leads.ts),
 * the outbox row, and a single statement padded to a power of two. Each form
 * writes 1000 new leads a batch into its own database file (one campaign each,
 * so no form's index entries sit after another's), interleaved batch by batch,
 * with the same leads; CPU time of the statements only (process.cpuUsage).
 *
 *   node bench/diag/sqlite-bulk.js [--forms=floor,tx,chunked-tx,tx-events,leadline,padded-events]
 *     [--batches=60] [--no-checkpoint]   (checkpoints after each batch, untimed)
 *     A form may name pragmas for its connection: leadline~cache_spill=OFF
 *
 * The figures of docs/perf-log.md ("2026-11-28, third session") come from here.
 */
import { randomBytes } from 'node:crypto';
import { openSqliteFile } from '../../dist/db/sqlite-driver.js';
import { lead } from '../lib/data.js';
import { median } from '../lib/load.js';
import { createStore } from '../lib/stores.js';

const argv = process.argv.slice(2);
const option = (name, dflt) => argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? dflt;
const forms = option('forms', 'floor,tx,chunked-tx,tx-events,leadline,padded-events').split(',');
const batches = Number(option('batches', 60));
const noCheckpoint = argv.includes('--no-checkpoint');
const BATCH = 1000;
const COLUMNS = 'id, campaign_id, phone_number, external_id, metadata, scheduled_for, priority, status, attempts, created_at';

/** one form on its own database: run(rows) writes one batch and returns the ids inserted */
async function side(spec) {
  const [name, ...pragmas] = spec.split('~');
  const store = await createStore('sqlite');
  const campaignId = await store.campaign(name);
  await store.db.close();
  const db = openSqliteFile(store.url.slice('sqlite:'.length));
  if (noCheckpoint) db.pragma('wal_autocheckpoint = 0');
  for (const p of pragmas) db.pragma(p);
  const prepared = new Map();
  const statement = (key, text) => {
    let s = prepared.get(key);
    if (s === undefined) prepared.set(key, (s = db.prepare(text())));
    return s;
  };
  const values = (n) =>
    statement(
      `v${n}`,
      () =>
        `insert into leads (${COLUMNS}) values ${Array(n).fill("(?,?,?,?,?,?,?,'raw',0,?)").join(',')} on conflict do nothing returning id`,
    );
  const padded = (n) =>
    statement(
      `p${n}`,
      () => `insert into leads (${COLUMNS}) select column1, column2, column3, column4, column5, column6, column7, 'raw', 0, column8
        from (values ${Array(n).fill('(?,?,?,?,?,?,?,?)').join(',')}) where column1 is not null on conflict do nothing returning id`,
    );
  const args = (rows, from, to, now) => {
    const out = [];
    for (let i = from; i < to; i++) {
      const r = rows[i];
      out.push(r.id, campaignId, r.phoneNumber, r.externalId, r.metadata, r.scheduledFor, r.priority, now);
    }
    return out;
  };
  const probe = (rows) =>
    statement('probe', () => `select 1 from leads where campaign_id = ? || '' and (external_id = ? || '' or phone_number = ? || '')`).get(
      campaignId,
      rows[0].externalId,
      rows[0].phoneNumber,
    );
  const one = (rows, now) => values(rows.length).all(...args(rows, 0, rows.length, now));
  // leadline's chunks: powers of two, the largest that fits first
  const chunked = (rows, now) => {
    const ids = [];
    for (let at = 0; at < rows.length; ) {
      const size = 2 ** Math.min(11, Math.floor(Math.log2(rows.length - at)));
      ids.push(...values(size).all(...args(rows, at, at + size, now)));
      at += size;
    }
    return ids;
  };
  const pad = (rows, now) => {
    const size = 2 ** Math.ceil(Math.log2(rows.length));
    const a = args(rows, 0, rows.length, now);
    for (let i = rows.length * 8; i < size * 8; i++) a.push(null);
    return padded(size).all(...a);
  };
  // the outbox row, as src/store/events.ts writes it
  const events = (rows, ids, now) => {
    const created = new Set(ids.map((r) => r.id));
    const items = rows.filter((r) => created.has(r.id)).map((r) => ({ leadId: r.id, externalId: r.externalId }));
    statement(
      'events',
      () => `insert into events (type, company_id, campaign_id, created_at, count, items)
        select 'lead.created', company_id, id, ? + 0, ? + 0, ? from campaigns where id = ? || ''`,
    ).run(now, items.length, JSON.stringify(items), campaignId);
    return ids;
  };
  // leadline's bounded write transaction (src/db/sqlite.ts): the statement journal in memory
  const tx = (fn) => {
    db.pragma('temp_store = memory');
    db.exec('begin immediate');
    try {
      const r = fn();
      db.exec('commit');
      return r;
    } catch (err) {
      db.exec('rollback');
      throw err;
    } finally {
      db.pragma('temp_store = default');
    }
  };
  const probed = (insert) => (rows, now) => {
    probe(rows);
    return insert(rows, now);
  };
  const withEvents = (insert) => (rows, now) => events(rows, insert(rows, now), now);
  const inTx = (insert) => (rows, now) => tx(() => insert(rows, now));
  const FORMS = {
    floor: probed(one),
    tx: inTx(probed(one)),
    'chunked-tx': inTx(probed(chunked)),
    'tx-events': inTx(withEvents(probed(one))),
    leadline: inTx(withEvents(probed(chunked))),
    'padded-events': inTx(withEvents(probed(pad))),
  };
  const run = FORMS[name];
  if (!run) throw new Error(`unknown form ${name}: ${Object.keys(FORMS).join(', ')}`);
  return { spec, run, db, store, cpu: [] };
}

let n = 0;
/** a batch as leadline's service builds it: ids, the metadata as JSON text */
function batch() {
  const bytes = randomBytes(16 * BATCH);
  return Array.from({ length: BATCH }, (_, i) => {
    const l = lead(++n);
    const id = `ld_${bytes.subarray(i * 16, i * 16 + 16).toString('base64url')}`;
    return {
      id,
      phoneNumber: l.phoneNumber,
      externalId: l.externalId,
      metadata: JSON.stringify(l.metadata),
      scheduledFor: l.scheduledFor ?? null,
      priority: l.priority,
    };
  });
}

const sides = [];
for (const f of forms) sides.push(await side(f));
for (let b = 0; b < batches; b++) {
  const rows = batch();
  for (const s of b % 2 === 0 ? sides : [...sides].reverse()) {
    const before = process.cpuUsage();
    const ids = s.run(rows, Date.now());
    const used = process.cpuUsage(before);
    if (ids.length !== BATCH) throw new Error(`${s.spec} inserted ${ids.length} of ${BATCH}`);
    s.cpu.push((used.user + used.system) / 1000);
    if (noCheckpoint) s.db.pragma('wal_checkpoint(TRUNCATE)');
  }
}
const fmt = (v) => v.toFixed(1).padStart(6);
console.log(
  `${batches} batches of ${BATCH}; CPU ms per batch, median of all and of each quarter${noCheckpoint ? ' (checkpoints untimed)' : ''}`,
);
for (const s of sides) {
  const quarters = [0, 1, 2, 3].map((q) => median(s.cpu.slice((q * batches) / 4, ((q + 1) * batches) / 4)));
  console.log(`  ${s.spec.padEnd(30)} ${fmt(median(s.cpu))}   ${quarters.map(fmt).join(' ')}`);
  s.db.close();
  await s.store.drop();
}
