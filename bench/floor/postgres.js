/**
 * The floor's PostgreSQL statements, each form the floor can run (FLOOR_BULK,
 * FLOOR_LIST; BENCHMARKS.md "The floors" has their measurements). The default
 * of each is the fastest found. Statements with a name are prepared once per
 * connection (pg keeps them); their texts are a small fixed set.
 */
import pg from 'pg';
import { ARRAY_COLUMNS, COLUMNS, arraysToJson, leadJsonSql, rowsToJson } from './json.js';
import { asRows, eager, externalIdsOf, firstIdentifiers, freshLeads, phoneNumbersOf } from './retry.js';

// The keyset written so only the campaign index can serve it (keyset() in
// src/leads/repository.ts: the plain form may walk the primary key).
const AFTER = (after) => `(campaign_id, seq) > ($1, ${after}) and campaign_id <= $1`;
const PAGE_WHERE = `${AFTER('$2')} order by campaign_id, seq limit $3`;

/**
 * Where a bulk's rows come from, in request order (`ord`): one JSON parameter
 * or one array per column. `first`: the first lead's externalId and phone
 * number as the statement sees them.
 */
const SOURCES = {
  json: {
    from: `rows from (json_to_recordset($3::json)
      as (id text, "phoneNumber" text, "externalId" text, metadata text, "scheduledFor" text, priority int))
      with ordinality as x(id, phone_number, external_id, metadata, scheduled_for, priority, ord)`,
    first: ['$4::text', '$5::text'],
    args: (campaignId, now, rows, first) => [
      campaignId,
      now,
      JSON.stringify(rows),
      ...(first ? [rows[0].externalId, rows[0].phoneNumber] : []),
    ],
  },
  unnest: {
    from: `unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::int[])
      with ordinality as x(id, phone_number, external_id, metadata, scheduled_for, priority, ord)`,
    first: ['$5[1]', '$4[1]'],
    args: (campaignId, now, rows) => [
      campaignId,
      now,
      rows.map((r) => r.id),
      rows.map((r) => r.phoneNumber),
      rows.map((r) => r.externalId),
      rows.map((r) => r.metadata),
      rows.map((r) => r.scheduledFor),
      rows.map((r) => r.priority),
    ],
  },
};
const SELECT_NEW = `select x.id, $1, x.phone_number, x.external_id, x.metadata, x.scheduled_for, x.priority, 'raw', 0, $2::bigint`;
// Is there a lead of the campaign with this identifier? A scalar subquery
// with LIMIT 1, so that PostgreSQL runs it as one probe of the identifier's
// unique index per lead: written as EXISTS under an OR (the adaptive form),
// it was planned as a hashed SubPlan that read the whole campaign (EXPLAIN
// ANALYZE: 21,000 rows for a 1000-lead retry, growing with the campaign).
// The campaign is an InitPlan parameter, `(select $1::text)`, estimated as an
// average campaign, so the probe stays on the unique index even for a
// campaign the statistics do not know (matching() in src/leads/repository.ts
// explains the misplan a plain $1 invites).
const taken = (column, value) =>
  `(select 1 from leads l where l.campaign_id = (select $1::text) and l.${column} = ${value} limit 1) is not null`;
/**
 * How duplicates are found inside the insert. plain: it tries every lead and
 * ON CONFLICT DO NOTHING skips what a unique index refuses. notexists: each
 * lead is first probed in the two identifier indexes (a duplicate then costs
 * a probe, not an insert attempt, which draws a `seq` value first); ON
 * CONFLICT still skips a repeat within the batch, which the probes cannot see.
 * adaptive: the probes only when the batch's first lead is there already (a
 * retry), decided once per statement (an InitPlan).
 */
const DEDUPE = {
  plain: () => '',
  notexists: () => `where not ${taken('external_id', 'x.external_id')} and not ${taken('phone_number', 'x.phone_number')}`,
  adaptive: ({ first: [externalId, phoneNumber] }) =>
    `where not (select ${taken('external_id', externalId)} or ${taken('phone_number', phoneNumber)})
       or (not ${taken('external_id', 'x.external_id')} and not ${taken('phone_number', 'x.phone_number')})`,
};

/** a text-format COPY field: NULL is \N; backslash, tab, newline and carriage return escaped */
const copyField = (v) =>
  v === null ? '\\N' : String(v).replace(/[\\\t\n\r]/g, (c) => ({ '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' })[c]);

/**
 * Row 14: a lead.created item as leadline's outbox writes it (JSON.stringify
 * of { leadId, externalId }: no spaces, a missing externalId null), built from
 * the inserted row; to_json escapes text as JSON.stringify does.
 */
const EVENT_ITEM = `'{"leadId":' || to_json(id)::text || ',"externalId":' || coalesce(to_json(external_id)::text, 'null') || '}'`;
/**
 * The one events row of a bulk, read from the CTE `ins` (the inserted leads):
 * its items in request order (seq follows it), its company read from the
 * campaign; nothing when no lead was inserted. With the NOTIFY leadline's
 * outbox sends in the same statement (src/store/events.ts), delivered at commit.
 */
const EVENTS_FROM_INS = `ev as (
    insert into events (type, company_id, campaign_id, created_at, count, items)
    select 'lead.created', c.company_id, c.id, $2::bigint, i.n, i.items
    from (select count(*) as n, '[' || string_agg(${EVENT_ITEM}, ',' order by seq) || ']' as items from ins) i
    join campaigns c on c.id = $1
    where i.n > 0
    returning campaign_id
  )`;

export function openPostgres(url, { bulk = 'json-lookup', list = 'rowjson', outbox = 'cte', poolSize = 20 } = {}) {
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    // No plan with a sort: a page is then read in order from leads_campaign_seq
    // and stops at its last lead. For a campaign the statistics do not know
    // (the bench's, created and filled since the last ANALYZE), PostgreSQL
    // otherwise read the whole campaign through another campaign index and
    // sorted it: EXPLAIN ANALYZE, the first 8001 leads of a 72,000-lead
    // campaign, 34-42 ms against 2.2 ms. No other statement of the floor
    // sorts (ordinality comes in order).
    options: '-c enable_sort=off -c enable_incremental_sort=off',
  });
  // pool.query passes pg a callback (docs/perf-log.md, "What profiling found",
  // item 8: pg's promise form costs a large result several times the garbage
  // collection)
  const run = (config, values) =>
    new Promise((resolve, reject) => pool.query(config, values, (err, r) => (err ? reject(err) : resolve(r.rows))));
  const ids = (rows) => rows.map((r) => r.id);
  const valuesText = new Map();

  const insertForms = {};
  // json, json-notexists, json-adaptive, unnest, unnest-notexists, unnest-adaptive
  for (const [source, src] of Object.entries(SOURCES)) {
    for (const [dedupe, where] of Object.entries(DEDUPE)) {
      const form = dedupe === 'plain' ? source : `${source}-${dedupe}`;
      const text = `insert into leads (${COLUMNS}) ${SELECT_NEW} from ${src.from} ${where(src)} order by x.ord on conflict do nothing returning id`;
      const first = dedupe === 'adaptive';
      insertForms[form] = async (campaignId, now, rows) =>
        ids(await run({ name: `floor-${form}`, text }, src.args(campaignId, now, rows, first)));
    }
  }
  // a retry answered by reads: one probe of the first lead; when it is
  // there, the batch's externalIds are looked up (then the phone numbers of
  // the leads whose externalId is free), duplicates decided in request
  // order in JS, and only what is left is made into rows (ids, metadata
  // text, UTC times: none for a retry whose leads are all there) for the
  // insert (`then`)
  const lookupThen =
    (then) =>
    async (campaignId, now, leads, rowsFor = asRows) => {
      const [hit] = await run(
        { name: 'floor-first', text: `select ${taken('external_id', '$2::text')} or ${taken('phone_number', '$3::text')} as hit` },
        [campaignId, ...firstIdentifiers(leads)],
      );
      if (!hit.hit) return then(campaignId, now, rowsFor(leads));
      const lookup = (column, values) =>
        values.length === 0
          ? []
          : run(
              {
                name: `floor-lookup-${column}`,
                text: `select l.v from unnest($2::text[]) as j(v)
                  cross join lateral (select j.v from leads where campaign_id = (select $1::text) and ${column} = j.v limit 1) l`,
                rowMode: 'array',
              },
              [campaignId, values],
            );
      const externalIds = new Set((await lookup('external_id', externalIdsOf(leads))).map((r) => r[0]));
      const phoneNumbers = new Set((await lookup('phone_number', phoneNumbersOf(leads, externalIds))).map((r) => r[0]));
      const fresh = freshLeads(leads, externalIds, phoneNumbers);
      return fresh.length === 0 ? [] : then(campaignId, now, rowsFor(fresh));
    };
  const jsonInsert = `insert into leads (${COLUMNS}) ${SELECT_NEW} from ${SOURCES.json.from} order by x.ord on conflict do nothing`;
  /** row 14: the 'json' insert and the one events row leadline's outbox writes with it, atomically */
  const outboxForms = {
    // one statement (atomic without BEGIN/COMMIT): the insert a data-modifying
    // CTE, the events row built from what it returned
    cte: async (campaignId, now, rows) =>
      ids(
        await run(
          {
            name: 'floor-outbox-cte',
            text: `with ins as (${jsonInsert} returning id, external_id, seq), ${EVENTS_FROM_INS}
              select id, (select count(pg_notify('leadline_events', campaign_id)) from ev) as notified from ins`,
          },
          SOURCES.json.args(campaignId, now, rows, false),
        ),
      ),
    // as leadline does it: BEGIN, the insert, the events row (its items built
    // in JS) with its NOTIFY, COMMIT; four round trips on one connection
    tx: async (campaignId, now, rows) => {
      const client = await pool.connect();
      const q = (config, values) =>
        new Promise((resolve, reject) => client.query(config, values, (err, r) => (err ? reject(err) : resolve(r.rows))));
      try {
        await q('begin');
        const inserted = ids(
          await q({ name: 'floor-outbox-json', text: `${jsonInsert} returning id` }, SOURCES.json.args(campaignId, now, rows, false)),
        );
        if (inserted.length > 0) {
          const created = new Set(inserted);
          const items = [];
          for (const r of rows) if (created.has(r.id)) items.push({ leadId: r.id, externalId: r.externalId });
          await q(
            {
              name: 'floor-outbox-tx',
              text: `with e as (insert into events (type, company_id, campaign_id, created_at, count, items)
                select 'lead.created', company_id, id, $2::bigint, $3, $4 from campaigns where id = $1 returning campaign_id)
                select pg_notify('leadline_events', campaign_id) from e`,
            },
            [campaignId, now, items.length, JSON.stringify(items)],
          );
        }
        await q('commit');
        return inserted;
      } catch (err) {
        await q('rollback').catch(() => {});
        throw err;
      } finally {
        client.release();
      }
    },
  };
  Object.assign(insertForms, {
    'json-lookup': lookupThen(insertForms.json),
    // multi-row VALUES with bound parameters, prepared once per batch size (6
    // per lead + 2: 1000 leads are 6002 of PostgreSQL's 65535)
    values: async (campaignId, now, rows) => {
      const n = rows.length;
      let text = valuesText.get(n);
      if (text === undefined) {
        const tuples = Array.from({ length: n }, (_, i) => {
          const p = 3 + i * 6;
          return `($${p},$1,$${p + 1},$${p + 2},$${p + 3},$${p + 4},$${p + 5}::int,'raw',0,$2::bigint)`;
        });
        valuesText.set(n, (text = `insert into leads (${COLUMNS}) values ${tuples.join(',')} on conflict do nothing returning id`));
      }
      const args = [campaignId, now];
      for (const r of rows) args.push(r.id, r.phoneNumber, r.externalId, r.metadata, r.scheduledFor, r.priority);
      return ids(await run({ name: `floor-values-${n}`, text }, args));
    },
    // COPY into a temporary table, then INSERT … SELECT from it (COPY itself
    // cannot skip a conflicting row); one transaction, five round trips
    copy: async (campaignId, now, rows) => {
      const { from: copyFrom } = await import('pg-copy-streams');
      const client = await pool.connect();
      const q = (config, values) =>
        new Promise((resolve, reject) => client.query(config, values, (err, r) => (err ? reject(err) : resolve(r.rows))));
      try {
        await q('begin');
        await q(
          `create temp table if not exists floor_bulk (ord int, id text, phone_number text, external_id text, metadata text, scheduled_for text, priority int) on commit delete rows`,
        );
        let data = '';
        for (let i = 0; i < rows.length; i++) {
          const r = rows[i];
          data += `${i}\t${r.id}\t${copyField(r.phoneNumber)}\t${copyField(r.externalId)}\t${copyField(r.metadata)}\t${copyField(r.scheduledFor)}\t${r.priority}\n`;
        }
        await new Promise((resolve, reject) => {
          const stream = client.query(copyFrom('copy floor_bulk from stdin'));
          stream.on('finish', resolve);
          stream.on('error', reject);
          stream.end(data);
        });
        const inserted = await q(
          {
            name: 'floor-copy-insert',
            text: `insert into leads (${COLUMNS}) select x.id, $1, x.phone_number, x.external_id, x.metadata, x.scheduled_for, x.priority, 'raw', 0, $2::bigint from floor_bulk x order by x.ord on conflict do nothing returning id`,
          },
          [campaignId, now],
        );
        await q('commit');
        return ids(inserted);
      } catch (err) {
        await q('rollback').catch(() => {});
        throw err;
      } finally {
        client.release();
      }
    },
  });

  const more = (rows, limit) => rows.length > limit;
  const listForms = {
    // rows as arrays (no object per row), the JSON concatenated in JS; limit +
    // 1 rows, the extra one answering hasMore
    arrays: async (campaignId, after, limit) => {
      const rows = await run(
        { name: 'floor-page-arrays', text: `select ${ARRAY_COLUMNS} from leads where ${PAGE_WHERE}`, rowMode: 'array' },
        [campaignId, after, limit + 1],
      );
      const n = Math.min(rows.length, limit);
      return { page: arraysToJson(rows, n, campaignId), n, last: n ? rows[n - 1][0] : null, more: more(rows, limit) };
    },
    // each lead's JSON built by PostgreSQL (the campaign quoted once, $4),
    // the page joined in JS
    rowjson: async (campaignId, after, limit) => {
      const rows = await run(
        {
          name: 'floor-page-rowjson',
          text: `select seq, ${leadJsonSql((c) => `to_json(${c})::text`, '$4::text')} as j from leads where ${PAGE_WHERE}`,
          rowMode: 'array',
        },
        [campaignId, after, limit + 1, JSON.stringify(campaignId)],
      );
      const n = Math.min(rows.length, limit);
      let page = '[';
      for (let i = 0; i < n; i++) page += (i === 0 ? '' : ',') + rows[i][1];
      return { page: page + ']', n, last: n ? rows[n - 1][0] : null, more: more(rows, limit) };
    },
    // rows as objects, the JSON concatenated in JS (leadline's form)
    rows: async (campaignId, after, limit) => {
      const rows = await run({ name: 'floor-page-rows', text: `select seq, ${COLUMNS} from leads where ${PAGE_WHERE}` }, [
        campaignId,
        after,
        limit + 1,
      ]);
      const m = more(rows, limit);
      if (m) rows.length = limit;
      return { page: rowsToJson(rows), n: rows.length, last: rows.length ? rows[rows.length - 1].seq : null, more: m };
    },
    // the whole page built by PostgreSQL, hasMore answered in the same statement
    db: async (campaignId, after, limit) => {
      const [r] = await run(
        {
          name: 'floor-page-db',
          text: `select page, n, last, (n = $3 and (select 1 from leads where ${AFTER('agg.last')} order by campaign_id, seq limit 1) is not null) as more from (
            select '[' || coalesce(string_agg(j, ',' order by seq), '') || ']' as page, count(*) as n, max(seq) as last from (
              select seq, ${leadJsonSql((c) => `to_json(${c})::text`)} as j from leads where ${PAGE_WHERE}
            ) page
          ) agg`,
        },
        [campaignId, after, limit],
      );
      return { page: r.page, n: Number(r.n), last: r.last, more: r.more };
    },
  };
  // the lookup form makes rows only of the new leads; every other form of all of them (eager)
  const insert = bulk === 'json-lookup' ? insertForms[bulk] : insertForms[bulk] && eager(insertForms[bulk]);
  const page = listForms[list];
  if (!insert || !page || !outboxForms[outbox])
    throw new Error(`unknown PostgreSQL floor form: FLOOR_BULK=${bulk} FLOOR_LIST=${list} outbox=${outbox}`);
  return {
    forms: { bulk, list, outbox },
    insert,
    // row 14: json-lookup, with the outbox's events row written with the insert
    insertWithEvents: lookupThen(outboxForms[outbox]),
    insertOne: async (campaignId, now, row) => (await insertForms.values(campaignId, now, [row]))[0] ?? null,
    page,
    /** the database's own key, which leadline's list cursors are made with (bench/floor/cursor.js) */
    databaseKey: async () => Buffer.from((await run('select key from number_digest_key where id = 1'))[0].key, 'hex'),
    close: () => pool.end(),
  };
}
