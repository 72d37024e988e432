/**
 * The floor: a bare node:http server doing only the work a request cannot do
 * without, so leadline's time can be read as a ratio to it.
 *
 * It answers leadline's own paths, so the client sends the same request bytes
 * (x-api-key included) to both:
 *
 *   POST …/bulk       parse the body, make ids, ONE insert…select statement that
 *                     skips duplicates through the unique indexes (ON CONFLICT DO
 *                     NOTHING, in request order, so a repeat within the request is
 *                     skipped too), write leadline's response shape.
 *   GET  …/leads      ONE statement that builds the page JSON in the database
 *                     and answers hasMore in the same round trip (FLOOR_LIST=db),
 *                     or fetches rows and concatenates the JSON in JS
 *                     (FLOOR_LIST=rows); the harness takes the faster. Same bytes
 *                     as leadline.
 *   FLOOR_SMALL={"GET":[bytes,status],"POST":[bytes,status]}: every request is
 *                     read and answered with a body of that size, nothing else.

 * No validation, no auth, no rate limit, no logging, no transaction (a single
 * statement is atomic on both databases). Env: FLOOR_DB (sqlite:PATH or
 * postgres://…), FLOOR_LIST, FLOOR_SMALL, PORT, HOST.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import pg from 'pg';
// leadline's own choice of SQLite driver for this Node, and its pragmas
import { openSqliteFile } from '../../dist/db/sqlite-driver.js';

const dbUrl = process.env.FLOOR_DB ?? '';
const isPg = dbUrl.startsWith('postgres');

// The statements are leadline's own (src/leads/repository.ts), written out as
// the raw text a driver receives, so both sides ask the database for the same work.
const INSERT_SQLITE = `
  insert into leads (id, campaign_id, phone_number, external_id, metadata, scheduled_for, priority, status, attempts, created_at)
  select value->>'id', ?, value->>'phoneNumber', value->>'externalId', value->>'metadata',
         value->>'scheduledFor', value->>'priority', 'raw', 0, ?
  from json_each(?) where true order by key
  on conflict do nothing returning id`;
const INSERT_PG = `
  insert into leads (id, campaign_id, phone_number, external_id, metadata, scheduled_for, priority, status, attempts, created_at)
  select x.id, $1, x."phoneNumber", x."externalId", x.metadata, x."scheduledFor", x.priority, 'raw', 0, $2::bigint
  from rows from (json_to_recordset($3::json)
    as (id text, "phoneNumber" text, "externalId" text, metadata text, "scheduledFor" text, priority int))
    with ordinality as x(id, "phoneNumber", "externalId", metadata, "scheduledFor", priority, ord)
  order by ord
  on conflict do nothing returning id`;

/** the lead object as JSON text, built by the database (q quotes a text column as JSON) */
function leadJson(q) {
  const opt = (name, col) => `case when ${col} is null then '' else ',"${name}":' || ${q(col)} end`;
  return `'{"_id":' || ${q('id')} || ',"campaignId":' || ${q('campaign_id')}
    || ${opt('phoneNumber', 'phone_number')} || ${opt('externalId', 'external_id')}
    || ',"metadata":' || metadata || ',"status":"' || status || '"'
    || ${opt('scheduledFor', 'scheduled_for')}
    || ',"priority":' || priority || ',"attempts":' || attempts || ',"_creationTime":' || created_at || '}'`;
}
// hasMore in the same statement: is there a lead after the page's last one?
// Nested subqueries, not CTEs: SQLite runs the CTE form ~20% slower.
const listSql = ({ q, where, order, agg, limit, probe }) => `
  select page, n, last, (n = ${limit} and (${probe}) is not null) as more from (
    select '[' || coalesce(${agg}, '') || ']' as page, count(*) as n, max(seq) as last from (
      select seq, ${leadJson(q)} as j from leads where ${where} order by ${order} limit ${limit}
    ) page
  ) agg`;
const LIST_SQLITE = listSql({
  q: (c) => `json_quote(${c})`,
  where: 'campaign_id = @c and seq > @after',
  order: 'seq',
  agg: "group_concat(j, ',' order by seq)",
  limit: '@limit',
  probe: 'select 1 from leads where campaign_id = @c and seq > agg.last order by seq limit 1',
});
// PostgreSQL: the keyset written so only the campaign index can serve it (see
// keyset() in src/leads/repository.ts: the plain form may walk the primary key).
const PG_AFTER = (after) => `(campaign_id, seq) > ($1, ${after}) and campaign_id <= $1`;
const LIST_PG = listSql({
  q: (c) => `to_json(${c})::text`,
  where: PG_AFTER('$2'),
  order: 'campaign_id, seq',
  agg: "string_agg(j, ',' order by seq)",
  limit: '$3',
  probe: `select 1 from leads where ${PG_AFTER('agg.last')} order by campaign_id, seq limit 1`,
});
const ROWS_SQLITE = `
  select seq, id, campaign_id, phone_number, external_id, metadata, status, scheduled_for, priority, attempts, created_at
  from leads where campaign_id = ? and seq > ? order by seq limit ?`;
const ROWS_PG = `
  select seq, id, campaign_id, phone_number, external_id, metadata, status, scheduled_for, priority, attempts, created_at
  from leads where ${PG_AFTER('$2')} order by campaign_id, seq limit $3`;

function openDb() {
  if (isPg) {
    const pool = new pg.Pool({ connectionString: dbUrl, max: 4 });
    const run = async (text, values) => (await pool.query(text, values)).rows;
    return {
      insert: (campaignId, now, json) => run(INSERT_PG, [campaignId, now, json]),
      list: async (campaignId, after, limit) => (await run(LIST_PG, [campaignId, after, limit]))[0],
      rows: (campaignId, after, limit) => run(ROWS_PG, [campaignId, after, limit]),
      close: () => pool.end(),
    };
  }
  if (!dbUrl.startsWith('sqlite:')) return null;
  const db = openSqliteFile(dbUrl.slice('sqlite:'.length));
  const insert = db.prepare(INSERT_SQLITE);
  const list = db.prepare(LIST_SQLITE);
  const rows = db.prepare(ROWS_SQLITE);
  return {
    insert: async (campaignId, now, json) => insert.all(campaignId, now, json),
    list: async (campaignId, after, limit) => {
      const r = list.get({ c: campaignId, after, limit });
      return { ...r, more: r.more === 1 };
    },
    rows: async (campaignId, after, limit) => rows.all(campaignId, after, limit),
    close: async () => db.close(),
  };
}

const db = openDb();
const encodeCursor = (seq) => Buffer.from(`v1.${Number(seq).toString(36)}`).toString('base64url');
const decodeCursor = (c) => parseInt(Buffer.from(c, 'base64url').toString('latin1').slice(3), 36);
const q = JSON.stringify;

async function bulk(body) {
  const { campaignId, leads } = JSON.parse(body);
  const bytes = randomBytes(16 * leads.length);
  const rows = leads.map((l, i) => ({
    id: 'ld_' + bytes.subarray(i * 16, i * 16 + 16).toString('base64url'),
    phoneNumber: l.phoneNumber ?? null,
    externalId: l.externalId ?? null,
    metadata: JSON.stringify(l.metadata ?? {}),
    scheduledFor: l.scheduledFor === undefined ? null : new Date(Date.parse(l.scheduledFor)).toISOString(),
    priority: l.priority ?? 0,
  }));
  const inserted = new Set((await db.insert(campaignId, Date.now(), JSON.stringify(rows))).map((r) => r.id));
  const data = { created: 0, skipped: 0, createdIds: [], skippedIdentifiers: [] };
  for (const r of rows) {
    if (inserted.has(r.id)) data.createdIds.push(r.id);
    // A skipped lead is reported by externalId when it has one: the identifier
    // leadline reports too whenever the externalId is what collided.
    else data.skippedIdentifiers.push(r.externalId ?? r.phoneNumber);
  }
  data.created = data.createdIds.length;
  data.skipped = data.skippedIdentifiers.length;
  return JSON.stringify({ success: true, data, error: null });
}

/** the page JSON concatenated in JS from plain rows (no JSON.parse of metadata: it is JSON text already) */
function rowsToJson(rows) {
  let out = '[';
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i];
    out +=
      (i ? ',{"_id":' : '{"_id":') +
      q(r.id) +
      ',"campaignId":' +
      q(r.campaign_id) +
      (r.phone_number === null ? '' : ',"phoneNumber":' + q(r.phone_number)) +
      (r.external_id === null ? '' : ',"externalId":' + q(r.external_id)) +
      ',"metadata":' +
      r.metadata +
      ',"status":"' +
      r.status +
      '"' +
      (r.scheduled_for === null ? '' : ',"scheduledFor":' + q(r.scheduled_for)) +
      ',"priority":' +
      r.priority +
      ',"attempts":' +
      r.attempts +
      ',"_creationTime":' +
      r.created_at +
      '}';
  }
  return out + ']';
}

async function list(url) {
  const campaignId = url.searchParams.get('campaignId');
  const limit = Number(url.searchParams.get('limit') ?? 1000);
  const cursor = url.searchParams.get('cursor');
  const after = cursor ? decodeCursor(cursor) : 0;
  let page, n, last, more;
  if (process.env.FLOOR_LIST === 'rows') {
    // limit + 1 rows: the extra one answers hasMore without a second statement
    const rows = await db.rows(campaignId, after, limit + 1);
    more = rows.length > limit;
    if (more) rows.length = limit;
    page = rowsToJson(rows);
    n = rows.length;
    last = n ? rows[n - 1].seq : null;
  } else {
    ({ page, n, last, more } = await db.list(campaignId, after, limit));
  }
  const next = encodeCursor(last === null ? after : last);
  return `{"success":true,"data":{"leads":${page},"count":${Number(n)},"cursor":${q(next)},"hasMore":${more}},"error":null}`;
}

const SMALL = process.env.FLOOR_SMALL ? JSON.parse(process.env.FLOOR_SMALL) : null;
function small(bytes) {
  const head = '{"success":true,"data":{"x":"';
  const tail = '"},"error":null}';
  return head + 'x'.repeat(Math.max(0, bytes - head.length - tail.length)) + tail;
}
const smallBodies = SMALL && Object.fromEntries(Object.entries(SMALL).map(([m, [bytes, status]]) => [m, [status, small(bytes)]]));

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', async () => {
    const url = new URL(req.url, 'http://floor');
    let status = 200;
    let body;
    try {
      if (url.pathname === '/health') body = '{"ok":true}';
      else if (smallBodies?.[req.method]) [status, body] = smallBodies[req.method];
      else if (req.method === 'POST' && url.pathname.endsWith('/bulk')) body = await bulk(Buffer.concat(chunks).toString('utf8'));
      else if (req.method === 'GET' && /\/api\/v1\/(leads|records)\/?$/.test(url.pathname)) body = await list(url);
      else [status, body] = [404, '{"error":"not found"}'];
    } catch (err) {
      [status, body] = [500, JSON.stringify({ error: String(err?.message ?? err) })];
    }
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
});
// Same keep-alive budget as Fastify's default, so neither side closes connections mid-run.
server.keepAliveTimeout = 72_000;
server.listen(Number(process.env.PORT ?? 0), process.env.HOST ?? '127.0.0.1', () => {
  process.stdout.write(`floor listening ${JSON.stringify(server.address())}\n`);
});
const stop = () => server.close(() => Promise.resolve(db?.close()).finally(() => process.exit(0)));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
