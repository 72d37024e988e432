/**
 * The floor: a bare node:http server doing only the work a request cannot do
 * without, in the fastest way found, so leadline's time can be read as a
 * ratio to it (BENCHMARKS.md, "The floors", has the forms tried and their
 * measurements; bench/diag/floors.js measures them again).
 *
 * It answers leadline's own paths, so the client sends the same request bytes
 * (x-api-key included) to both:
 *
 *   POST …/leads/bulk  parse the body, ONE insert statement that skips
 *                      duplicates through the unique indexes (ON CONFLICT DO
 *                      NOTHING, in request order, so a repeat within the
 *                      request is skipped too), ids made only for the leads
 *                      it inserts (a retry is answered by reads first, and
 *                      makes none), write leadline's response shape.
 *   POST …/leads       the same for one lead: 201 and its id.
 *   GET  …/leads       ONE statement for the page (limit + 1 rows, the extra
 *                      one answering hasMore); same bytes as leadline.
 *   FLOOR_SMALL={"GET":[bytes,status],"POST":[bytes,status]}: every request is
 *                      read and answered with a constant body of that size,
 *                      no database (bench/diag/ladder.js, bench/diag/floors.js).
 *
 * No validation, no auth, no rate limit, no logging, no transaction around a
 * single statement (it is atomic on both databases). Env: FLOOR_DB (sqlite:PATH
 * or postgres://…), FLOOR_BULK, FLOOR_LIST and FLOOR_ONE (a form of
 * bench/floor/sqlite.js or postgres.js; unset: the fastest; GET /health names
 * the forms in use),
 * FLOOR_PG_POOL, FLOOR_SMALL, PORT, HOST.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { listCursors } from './cursor.js';
import { openPostgres } from './postgres.js';
import { openSqlite } from './sqlite.js';

const dbUrl = process.env.FLOOR_DB ?? '';
const forms = {
  ...(process.env.FLOOR_BULK ? { bulk: process.env.FLOOR_BULK } : {}),
  ...(process.env.FLOOR_LIST ? { list: process.env.FLOOR_LIST } : {}),
  ...(process.env.FLOOR_ONE ? { one: process.env.FLOOR_ONE } : {}),
  ...(process.env.FLOOR_PG_POOL ? { poolSize: Number(process.env.FLOOR_PG_POOL) } : {}),
};
const db = dbUrl.startsWith('postgres')
  ? openPostgres(dbUrl, forms)
  : dbUrl.startsWith('sqlite:')
    ? openSqlite(dbUrl.slice('sqlite:'.length), forms)
    : null;

const cursors = db && listCursors(await db.databaseKey());
const q = JSON.stringify;

// ids as leadline makes them: 16 random bytes, base64url; a single create
// takes its bytes from a pooled randomBytes call, as leadline's does
let pool = Buffer.alloc(0);
let used = 0;
function random(n) {
  if (n > 1024) return randomBytes(n);
  if (used + n > pool.length) [pool, used] = [randomBytes(4096), 0];
  return pool.subarray(used, (used += n));
}
// the time first, as leadline's ids (src/ids.ts): new entries of the id index land at its right edge
const idPrefix = () => 'ld_' + Date.now().toString(36).padStart(9, '0');
const newId = (prefix, bytes, i) => prefix + bytes.subarray(i * 16, i * 16 + 16).toString('base64url');

const toRow = (id, l) => ({
  id,
  phoneNumber: l.phoneNumber ?? null,
  externalId: l.externalId ?? null,
  metadata: JSON.stringify(l.metadata ?? {}),
  scheduledFor: l.scheduledFor === undefined ? null : new Date(Date.parse(l.scheduledFor)).toISOString(),
  priority: l.priority ?? 0,
});

async function bulk(body) {
  const { campaignId, leads } = JSON.parse(body);
  // Rows (an id, the metadata's text, the UTC time) only for the leads the
  // store asks for: all of them for new leads, none for a retry whose leads
  // are all there (the lookup forms). They are a subsequence of `leads`.
  let asked = [];
  let rows = [];
  const rowsFor = (some) => {
    const bytes = random(16 * some.length);
    asked = some;
    const prefix = idPrefix();
    rows = some.map((l, i) => toRow(newId(prefix, bytes, i), l));
    return rows;
  };
  const inserted = new Set(await db.insert(campaignId, Date.now(), leads, rowsFor));
  const data = { created: 0, skipped: 0, createdIds: [], skippedIdentifiers: [] };
  for (let i = 0, k = 0; i < leads.length; i++) {
    const l = leads[i];
    if (asked[k] === l) {
      const id = rows[k++].id;
      if (inserted.has(id)) {
        data.createdIds.push(id);
        continue;
      }
    }
    // A skipped lead is reported by externalId when it has one: the identifier
    // leadline reports too whenever the externalId is what collided.
    data.skippedIdentifiers.push(l.externalId ?? l.phoneNumber);
  }
  data.created = data.createdIds.length;
  data.skipped = data.skippedIdentifiers.length;
  return [200, JSON.stringify({ success: true, data, error: null })];
}

async function createOne(body) {
  const { campaignId, ...lead } = JSON.parse(body);
  const id = await db.insertOne(campaignId, Date.now(), toRow(newId(idPrefix(), random(16), 0), lead));
  return id === null
    ? [409, '{"success":false,"data":null,"error":{"code":"conflict","message":"Lead already exists"}}']
    : [201, `{"success":true,"data":{"leadId":${q(id)}},"error":null}`];
}

async function list(url) {
  const campaignId = url.searchParams.get('campaignId');
  const limit = Number(url.searchParams.get('limit') ?? 1000);
  const cursor = url.searchParams.get('cursor');
  const after = cursor ? cursors.decode(campaignId, cursor) : 0;
  const { page, n, last, more } = await db.page(campaignId, after, limit);
  const next = cursors.encode(campaignId, last === null ? after : last);
  return [200, `{"success":true,"data":{"leads":${page},"count":${n},"cursor":${q(next)},"hasMore":${more}},"error":null}`];
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
    let status;
    let body;
    try {
      if (url.pathname === '/health') [status, body] = [200, JSON.stringify({ ok: true, forms: db?.forms ?? null })];
      else if (smallBodies?.[req.method]) [status, body] = smallBodies[req.method];
      else if (req.method === 'POST' && url.pathname.endsWith('/bulk')) [status, body] = await bulk(Buffer.concat(chunks).toString('utf8'));
      else if (req.method === 'POST' && url.pathname === '/api/v1/leads')
        [status, body] = await createOne(Buffer.concat(chunks).toString('utf8'));
      else if (req.method === 'GET' && /\/api\/v1\/(leads|records)\/?$/.test(url.pathname)) [status, body] = await list(url);
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
