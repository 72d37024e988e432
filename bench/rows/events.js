/**
 * Row 12: events out. `leadline serve` delivers each event to a webhook
 * endpoint as one signed POST (docs/events.md); the figure is how many a
 * second reach a local receiver, one endpoint, after a burst of bulk creates
 * (each lead one `lead.created`), counted from the first arrival to the last.
 *
 * The floor is the part no deliverer can skip: for each of the same messages,
 * in order and one at a time (an endpoint's events go in order, each sent
 * once the one before it was answered), sign it by the Standard Webhooks
 * scheme and POST it over a kept-alive connection to the same receiver. What
 * leadline adds is reading the events from the database page by page and
 * recording each try in the delivery log, as the endpoint's log must show
 * every try.
 *
 * The outbox's cost on a bulk create, the other half of issue 17, is row 14
 * (bench/rows/outbox.js).
 */
import { createHmac } from 'node:crypto';
import http from 'node:http';
import { createCampaign } from '../../dist/campaigns/service.js';
import { parseDatabaseUrl } from '../../dist/config.js';
import { openStore } from '../../dist/store/index.js';
import { createWebhook } from '../../dist/webhooks/service.js';
import { bulkBody } from '../lib/data.js';
import { check, fetchText } from './checks.js';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const fmtRate = (n) => `${Math.round(n).toLocaleString('en-US')} events/s`;

/** a webhook endpoint on 127.0.0.1: answers 204 at once, keeps each message's webhook-id and arrival time */
async function endpoint() {
  const arrivals = [];
  const ids = new Set();
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      ids.add(req.headers['webhook-id']);
      arrivals.push(performance.now());
      res.writeHead(204).end();
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${server.address().port}/hook`,
    arrivals,
    ids,
    reset() {
      arrivals.length = 0;
      ids.clear();
    },
    close: () => new Promise((r) => server.close(r)),
  };
}

/** Standard Webhooks: base64 HMAC-SHA256 of `id.timestamp.body`, keyed by the secret's base64 part */
function sign(key, id, ts, body) {
  return `v1,${createHmac('sha256', key).update(`${id}.${ts}.${body}`).digest('base64')}`;
}

/** the floor: n messages of lead.created's shape, each signed and POSTed in turn; messages per second */
async function floorRate(url, secret, n, campaignId) {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const post = (i) =>
    new Promise((resolve, reject) => {
      const id = `evt_floor_${i}`;
      const ts = Math.floor(Date.now() / 1000);
      const body = JSON.stringify({
        type: 'lead.created',
        timestamp: new Date().toISOString(),
        data: { leadId: `ld_floor${String(i).padStart(17, '0')}`, campaignId, externalId: `floor-${i}`, phoneNumber: '+14155550100' },
      });
      const req = http.request(
        url,
        {
          method: 'POST',
          agent,
          headers: {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
            'webhook-id': id,
            'webhook-timestamp': String(ts),
            'webhook-signature': sign(key, id, ts, body),
          },
        },
        (res) => {
          res.resume();
          res.on('end', () =>
            res.statusCode >= 200 && res.statusCode < 300 ? resolve() : reject(new Error(`floor got ${res.statusCode}`)),
          );
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await post(i);
  const seconds = (performance.now() - t0) / 1000;
  agent.destroy();
  return n / seconds;
}

export async function eventsRow(ctx) {
  const { S, H, store, leadline, base, rows, log } = ctx;
  const n = S.events;
  log(`${ctx.kind}: 12 events delivered per second`);
  const hook = await endpoint();
  const db = openStore(parseDatabaseUrl(store.url), { pgPoolSize: 1 });
  let campaignId;
  let secret;
  try {
    ({ campaignId } = await createCampaign(db, { companyId: store.companyId, name: 'bench events', hours: 'mon-sun 00:00-24:00' }));
    // this campaign's events only: the other rows' bulk creates are not the endpoint's
    ({ secret } = await createWebhook(db, { companyId: store.companyId, url: hook.url, campaignId, events: ['lead.created'] }));
  } finally {
    await db.close();
  }
  try {
    const t0 = performance.now();
    for (let made = 0; made < n; made += S.bulk) {
      const body = bulkBody(campaignId, Math.min(S.bulk, n - made));
      const res = await fetchText(`${leadline.url}/api/v1/leads/bulk`, {
        method: 'POST',
        headers: { ...H, 'content-type': 'application/json' },
        body,
      });
      check('events bulk', res.status === 200, `bulk create answered ${res.status}`);
    }
    // the deliverer's rounds come every second; n messages one at a time take a while more
    const deadline = Date.now() + 60_000 + n * 20;
    while (hook.arrivals.length < n && Date.now() < deadline) await sleep(50);
    check('events delivered', hook.arrivals.length === n, `${hook.arrivals.length} of ${n} events arrived`);
    check('events delivered once', hook.ids.size === n, `${hook.ids.size} distinct webhook-ids for ${n} events`);
    const first = hook.arrivals[0];
    const last = hook.arrivals[hook.arrivals.length - 1];
    const rate = (n - 1) / ((last - first) / 1000);
    const created = (first - t0) / 1000;
    hook.reset();
    const floor = await floorRate(hook.url, secret, n, campaignId);
    rows.push({
      ...base(12, `events delivered to one webhook endpoint (${n.toLocaleString('en-US')} lead.created)`),
      leadline: fmtRate(rate),
      p99: '',
      floor: fmtRate(floor),
      floorP99: '',
      ratio: `${(rate / floor).toFixed(2)}×`,
      ratioValue: rate / floor,
      target: '–',
      met: null,
      note: `first event arrived ${created.toFixed(1)} s after the first bulk was sent; floor: each message signed and POSTed in turn over one kept-alive connection, no database`,
    });
  } finally {
    await hook.close();
  }
}
