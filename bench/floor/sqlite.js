/**
 * The floor's SQLite statements, each form the floor can run (FLOOR_BULK,
 * FLOOR_LIST; BENCHMARKS.md "The floors" has their measurements). The default
 * of each is the fastest found.
 */
// leadline's own choice of SQLite driver for this Node, and its pragmas (WAL,
// synchronous = NORMAL, busy_timeout, foreign_keys: the schema's foreign keys
// are checked, as PostgreSQL always does)
import { openSqliteFile } from '../../dist/db/sqlite-driver.js';
import { COLUMNS, leadJsonSql, rowsToJson } from './json.js';
import { asRows, eager, externalIdsOf, firstIdentifiers, freshLeads, phoneNumbersOf } from './retry.js';

/**
 * The one place that opens SQLite. Everything below uses only prepare(), a
 * statement's all()/get()/run() with positional arguments (no named ones:
 * node:sqlite and better-sqlite3 bind those differently), and exec().
 */
function openDriver(path) {
  return openSqliteFile(path);
}

// Every value the planner could look at is bound inside an expression (`? ||
// ''`, `? + 0`), as leadline's list statement does (docs/perf-log.md, "What
// profiling found", item 14): SQLite is built with STAT4, so on an analyzed
// database a bare parameter compared with an indexed column re-prepares the
// statement on every run.
const PAGE_WHERE = `campaign_id = ? || '' and seq > ? + 0 order by seq limit ? + 0`;
const TUPLE = `(?,?,?,?,?,?,?,'raw',0,?)`;
const PER_ROW = 8;

/** the bulk's rows as the positional arguments of TUPLE, row after row */
function tupleArgs(campaignId, now, rows, from, to) {
  const args = [];
  for (let i = from; i < to; i++) {
    const r = rows[i];
    args.push(r.id, campaignId, r.phoneNumber, r.externalId, r.metadata, r.scheduledFor, r.priority, now);
  }
  return args;
}

export function openSqlite(path, { bulk = 'values-grouplookup', list = 'rowjson', one = 'grouped' } = {}) {
  const db = openDriver(path);

  // Statements whose text depends on the batch size are prepared once per size.
  const prepared = new Map();
  const statement = (key, text) => {
    let s = prepared.get(key);
    if (s === undefined) prepared.set(key, (s = db.prepare(text())));
    return s;
  };

  // SQLITE_MAX_VARIABLE_NUMBER: 32766 since SQLite 3.32 unless the build says
  // otherwise (999 before). A batch above it is split, in one transaction.
  const built = db.prepare(`select compile_options as o from pragma_compile_options where o like 'MAX_VARIABLE_NUMBER=%'`).get();
  const version = db.prepare('select sqlite_version() as v').get().v.split('.').map(Number);
  const maxVars = built ? Number(built.o.split('=')[1]) : version[0] > 3 || version[1] >= 32 ? 32766 : 999;
  const rowsPerStatement = Math.floor(maxVars / PER_ROW);
  const chunked = (insertChunk) => (campaignId, now, rows) => {
    // inside the outbox's transaction (withEvents) the chunks need none of their own
    if (rows.length <= rowsPerStatement || db.inTransaction) {
      const ids = [];
      for (let at = 0; at < rows.length; at += rowsPerStatement) {
        ids.push(...insertChunk(campaignId, now, rows, at, Math.min(rows.length, at + rowsPerStatement)));
      }
      return ids;
    }
    db.exec('begin immediate');
    try {
      const ids = [];
      for (let at = 0; at < rows.length; at += rowsPerStatement) {
        ids.push(...insertChunk(campaignId, now, rows, at, Math.min(rows.length, at + rowsPerStatement)));
      }
      db.exec('commit');
      return ids;
    } catch (err) {
      db.exec('rollback');
      throw err;
    }
  };

  // A retry answered by reads: one probe of the first lead; when it is
  // there, the batch's externalIds are looked up (then the phone numbers of
  // the leads whose externalId is free), duplicates decided in request order
  // in JS, and only what is left is made into rows (ids, metadata text, UTC
  // times: none for a retry whose leads are all there) for the 'values' insert.
  const lookupForm = (lookup) => (campaignId, now, leads, rowsFor) => {
    const taken = statement(
      'first',
      () => `select 1 from leads where campaign_id = ? || '' and (external_id = ? || '' or phone_number = ? || '')`,
    ).get(campaignId, ...firstIdentifiers(leads));
    if (!taken) return insertForms.values(campaignId, now, rowsFor(leads));
    const externalIds = lookup(campaignId, 'external_id', externalIdsOf(leads));
    const fresh = freshLeads(leads, externalIds, lookup(campaignId, 'phone_number', phoneNumbersOf(leads, externalIds)));
    return fresh.length === 0 ? [] : insertForms.values(campaignId, now, rowsFor(fresh));
  };
  // the identifiers as an IN list, prepared once per size
  const inListLookup = (campaignId, column, values) => {
    const found = new Set();
    for (let at = 0; at < values.length; at += maxVars - 1) {
      const part = values.slice(at, at + maxVars - 1);
      // `? || ''`: bare values in the IN list would inform the plan (STAT4)
      // and re-prepare the statement on every run, as for PAGE_WHERE
      const text = () =>
        `select ${column} as v from leads where campaign_id = ? || '' and ${column} in (${Array(part.length).fill("? || ''").join(',')})`;
      for (const r of statement(`${column}${part.length}`, text).all(campaignId, ...part)) found.add(r.v);
    }
    return found;
  };
  // the identifiers as one JSON parameter, each probing the unique index
  // (CROSS JOIN keeps json_each outside); one text whatever the batch's size
  const probes = (column) => `from json_each(?) j cross join leads l where l.campaign_id = ? || '' and l.${column} = j.value`;
  const jsonLookup = (campaignId, column, values) => {
    const found = new Set();
    if (values.length === 0) return found;
    const text = () => `select l.${column} as v ${probes(column)}`;
    for (const r of statement(`json-${column}`, text).all(JSON.stringify(values), campaignId)) found.add(r.v);
    return found;
  };

  // the same probes, the values found coming back as one JSON array the
  // database builds: better-sqlite3 makes an object of every row it returns,
  // which for 1000 found cost nearly as much as the probes (leadline's form)
  const groupLookup = (campaignId, column, values) => {
    if (values.length === 0) return new Set();
    const text = () => `select json_group_array(l.${column}) as v ${probes(column)}`;
    return new Set(JSON.parse(statement(`group-${column}`, text).get(JSON.stringify(values), campaignId).v));
  };

  const insertForms = {
    // multi-row VALUES with bound parameters, in request order: the unique
    // indexes skip a lead of the campaign or an earlier row of the batch
    values: chunked((campaignId, now, rows, from, to) =>
      statement(
        `v${to - from}`,
        () =>
          `insert into leads (${COLUMNS}) values ${Array(to - from)
            .fill(TUPLE)
            .join(',')} on conflict do nothing returning id`,
      )
        .all(...tupleArgs(campaignId, now, rows, from, to))
        .map((r) => r.id),
    ),
    // the same VALUES, filtered first by one probe of each identifier's unique
    // index (a duplicate then costs no insert attempt); ON CONFLICT still
    // skips repeats within the batch, which the probes cannot see
    'values-notexists': chunked((campaignId, now, rows, from, to) =>
      statement(
        `n${to - from}`,
        () => `insert into leads (${COLUMNS})
          select v.column2, v.column3, v.column4, v.column5, v.column6, v.column7, v.column8, 'raw', 0, v.column9
          from (values ${Array.from({ length: to - from }, (_, i) => `(${i},?,?,?,?,?,?,?,?)`).join(',')}) v
          where not exists (select 1 from leads l where l.campaign_id = v.column3 and l.external_id = v.column5)
            and not exists (select 1 from leads l where l.campaign_id = v.column3 and l.phone_number = v.column4)
          order by v.column1
          on conflict do nothing returning id`,
      )
        .all(...tupleArgs(campaignId, now, rows, from, to))
        .map((r) => r.id),
    ),
    // 'values' for a batch whose first lead is new, 'values-notexists' for one
    // whose first lead is there already (a retry): one probe picks
    'values-adaptive': (campaignId, now, rows) => {
      const taken = statement(
        'first',
        () => `select 1 from leads where campaign_id = ? || '' and (external_id = ? || '' or phone_number = ? || '')`,
      ).get(campaignId, ...firstIdentifiers(rows));
      return insertForms[taken ? 'values-notexists' : 'values'](campaignId, now, rows);
    },

    // leadline's statement: the batch as one JSON parameter
    json: (campaignId, now, rows) =>
      statement(
        'json',
        () => `insert into leads (${COLUMNS})
          select value->>'id', ?, value->>'phoneNumber', value->>'externalId', value->>'metadata',
                 value->>'scheduledFor', value->>'priority', 'raw', 0, ?
          from json_each(?) where true order by key
          on conflict do nothing returning id`,
      )
        .all(campaignId, now, JSON.stringify(rows))
        .map((r) => r.id),
    // one single-row statement per lead, all in one transaction
    'rows-tx': (campaignId, now, rows) => {
      const one = statement('v1', () => `insert into leads (${COLUMNS}) values ${TUPLE} on conflict do nothing returning id`);
      db.exec('begin immediate');
      try {
        const ids = [];
        for (let i = 0; i < rows.length; i++) {
          const r = one.get(...tupleArgs(campaignId, now, rows, i, i + 1));
          if (r !== undefined) ids.push(r.id);
        }
        db.exec('commit');
        return ids;
      } catch (err) {
        db.exec('rollback');
        throw err;
      }
    },
  };

  const listForms = {
    // each lead's JSON built by SQLite (the campaign quoted once, the first
    // parameter), the page joined in JS; limit + 1 rows, the extra one
    // answering hasMore
    rowjson: (campaignId, after, limit) => {
      const rows = statement(
        'rowjson',
        () => `select seq, ${leadJsonSql((c) => `json_quote(${c})`, '?')} as j from leads where ${PAGE_WHERE}`,
      ).all(JSON.stringify(campaignId), campaignId, after, limit + 1);
      const more = rows.length > limit;
      const n = more ? limit : rows.length;
      let page = '[';
      for (let i = 0; i < n; i++) page += (i === 0 ? '' : ',') + rows[i].j;
      return { page: page + ']', n, last: n ? rows[n - 1].seq : null, more };
    },
    // the whole page built by SQLite, hasMore answered in the same statement
    // (leadline's statement)
    db: (campaignId, after, limit) => {
      const r = statement(
        'db',
        () => `select page, n, last, (n = ? + 0 and (select 1 from leads where campaign_id = ? || '' and seq > agg.last + 0 order by seq limit 1) is not null) as more from (
          select '[' || coalesce(group_concat(j, ',' order by seq), '') || ']' as page, count(*) as n, max(seq) as last from (
            select seq, ${leadJsonSql((c) => `json_quote(${c})`)} as j from leads where ${PAGE_WHERE}
          ) page
        ) agg`,
      ).get(limit, campaignId, campaignId, after, limit);
      return { page: r.page, n: r.n, last: r.last, more: r.more === 1 };
    },
    // plain rows, the JSON concatenated in JS
    rows: (campaignId, after, limit) => {
      const rows = statement('rows', () => `select seq, ${COLUMNS} from leads where ${PAGE_WHERE}`).all(campaignId, after, limit + 1);
      const more = rows.length > limit;
      if (more) rows.length = limit;
      return { page: rowsToJson(rows), n: rows.length, last: rows.length ? rows[rows.length - 1].seq : null, more };
    },
  };
  // the lookup forms make rows only of the new leads; every other form of all of them (eager)
  const lookupForms = {
    // a retry answered by reads (lookupForm), each lookup an IN list
    'values-lookup': lookupForm(inListLookup),
    // the same, each lookup one JSON parameter read with json_each, probing the
    // unique index once per identifier, a row for each one found
    'values-jsonlookup': lookupForm(jsonLookup),
    // the same probes, what was found one JSON array (leadline's form)
    'values-grouplookup': lookupForm(groupLookup),
  };
  const insert = lookupForms[bulk] ?? (insertForms[bulk] && eager(insertForms[bulk]));
  const page = listForms[list];
  // Row 5's single create: each in autocommit ('alone'), or every create that
  // arrived in one turn of the event loop in one transaction, committed once
  // ('grouped', as leadline does: src/db/sqlite-group.ts). A failing insert
  // undoes only itself (SQLite's statements are atomic inside a transaction).
  const insertAlone = (campaignId, now, row) => insertForms.values(campaignId, now, [row])[0] ?? null;
  const waiting = [];
  const commitWaiting = () => {
    const group = waiting.splice(0);
    const done = [];
    try {
      db.exec('begin immediate');
    } catch (err) {
      for (const w of group) w.reject(err);
      return;
    }
    for (const w of group) {
      try {
        done.push([w, insertAlone(...w.args)]);
      } catch (err) {
        w.reject(err);
      }
    }
    try {
      db.exec('commit');
    } catch (err) {
      if (db.inTransaction) db.exec('rollback');
      for (const [w] of done) w.reject(err);
      return;
    }
    for (const [w, id] of done) w.resolve(id);
  };
  const insertOneForms = {
    alone: async (...args) => insertAlone(...args),
    grouped: (...args) =>
      new Promise((resolve, reject) => {
        if (waiting.push({ args, resolve, reject }) === 1) setImmediate(commitWaiting);
      }),
  };
  const insertOne = insertOneForms[one];
  if (!insert || !page || !insertOne) throw new Error(`unknown SQLite floor form: FLOOR_BULK=${bulk} FLOOR_LIST=${list} FLOOR_ONE=${one}`);

  // Row 14: the same insert and, in the same immediate transaction, the one
  // events row leadline's outbox writes for it (src/store/events.ts): a batch
  // is one row, its items the created leads in request order, as
  // JSON.stringify writes them; its company read from the campaign in the
  // insert itself, as leadline does.
  // The statement journal of the transaction's insert in memory, as leadline's
  // bounded transactions keep it (src/db/sqlite.ts: a temporary file costs a
  // 1000-lead insert a third more CPU; autocommit needs none).
  const withEvents = (campaignId, now, leads, rowsFor) => {
    db.pragma('temp_store = memory');
    db.exec('begin immediate');
    try {
      let rows = [];
      const ids = insert(campaignId, now, leads, (some) => (rows = rowsFor(some)));
      if (ids.length > 0) {
        const created = new Set(ids);
        const items = [];
        for (const r of rows) if (created.has(r.id)) items.push({ leadId: r.id, externalId: r.externalId });
        statement(
          'events',
          () => `insert into events (type, company_id, campaign_id, created_at, count, items)
            select 'lead.created', company_id, id, ? + 0, ? + 0, ? from campaigns where id = ? || ''`,
        ).run(now, items.length, JSON.stringify(items), campaignId);
      }
      db.exec('commit');
      return ids;
    } catch (err) {
      db.exec('rollback');
      throw err;
    } finally {
      db.pragma('temp_store = default');
    }
  };
  return {
    forms: { bulk, list, one },
    /** the leads as parsed, `rowsFor(leads)` their complete rows (bench/floor/server.js); without it they are rows already */
    insert: async (campaignId, now, leads, rowsFor = asRows) => insert(campaignId, now, leads, rowsFor),
    insertWithEvents: async (campaignId, now, leads, rowsFor = asRows) => withEvents(campaignId, now, leads, rowsFor),
    insertOne,
    page: async (campaignId, after, limit) => page(campaignId, after, limit),
    /** the database's own key, which leadline's list cursors are made with (bench/floor/cursor.js) */
    databaseKey: async () => Buffer.from(db.prepare('select key from number_digest_key where id = 1').get().key, 'hex'),
    close: async () => db.close(),
  };
}
