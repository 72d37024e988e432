/**
 * Slow and abusive clients against a real `leadline serve`: thousands of idle
 * sockets, slow-loris heads, bodies that never finish and a flood of
 * unauthenticated requests, all at once. A well-behaved client keeps being
 * served promptly throughout, and the server itself closes every slow socket
 * by its deadlines (short ones here, set through the environment).
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../../src/auth/service.js';
import { createCampaign, createCompany } from '../../src/campaigns/service.js';
import { createTestStore, type TestStore } from '../helpers/db.js';
import { isEnvelope } from '../helpers/fixture.js';
import { type ServerProcess, startServerProcess } from '../helpers/server-process.js';
import { connect, fdLimit, type RawClient } from './sockets.js';

const HEADERS_MS = 1500;
const REQUEST_MS = 3000;
// As many idle sockets as the descriptor limit allows (20,000 here: 9,000), kept
// under the server's default MAX_CONNECTIONS (10,000) with room for the rest of
// the attack and the good client, so that what is tested is the deadlines, not
// the connection cap (test/reliability/connection-limits.test.ts tests that).
const IDLE = Math.max(100, Math.min(9000, fdLimit() - 1000));
const LORIS = 100;
const BODIES = 100;
const FLOOD = 3000;
// Bounds for a loaded 2-core CI machine; measured here: median ~10 ms, slowest ~1 s (while the test
// process itself is busy with 3000 flood answers and 2000 sockets).
const GOOD_CLIENT_MAX_MS = 3000;
const GOOD_CLIENT_MEDIAN_MS = 250;
// One deadline sweep (≤ 1 s) plus a loaded 2-core machine accepting 2000 sockets while other
// suites run; still far inside what Node's own 30 s sweep would allow.
const SLACK_MS = 5000;

interface Answer {
  status: number;
  body: string;
  ms: number;
}

function request(
  agent: http.Agent,
  port: number,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<Answer> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, headers, agent }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, body: text, ms: performance.now() - started }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('slow and abusive clients do not starve a well-behaved one', () => {
  let store: TestStore;
  let server: ServerProcess;
  let port: number;
  let key: string;
  let campaignId: string;

  beforeAll(async () => {
    store = await createTestStore('sqlite');
    const db = await store.open();
    const { companyId } = await createCompany(db, 'Patient Co');
    ({ campaignId } = await createCampaign(db, { companyId, name: 'Patient' }));
    ({ key } = await createKey(db, { companyId, name: 'good', scope: 'write' }));
    await db.close();
    server = await startServerProcess({
      DATABASE_URL: store.url,
      HEADERS_TIMEOUT_MS: String(HEADERS_MS),
      REQUEST_TIMEOUT_MS: String(REQUEST_MS),
      CONNECTION_TIMEOUT_MS: '10000',
      KEEP_ALIVE_TIMEOUT_MS: '5000',
      RATE_LIMIT_PER_MINUTE: '100000',
      RATE_LIMIT_PER_HOUR: '100000',
    });
    port = Number(new URL(server.url).port);
  });
  afterAll(async () => {
    await server?.stop();
    await store?.drop();
  });

  it(`${IDLE} idle sockets, ${LORIS} slow-loris heads, ${BODIES} unfinished bodies and ${FLOOD} unauthenticated requests`, async () => {
    const good = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const goodAnswers: Answer[] = [];
    let attacking = true;
    const wellBehaved = (async () => {
      for (let i = 0; attacking; i++) {
        const headers = { 'x-api-key': key, 'content-type': 'application/json' };
        goodAnswers.push(
          i % 2
            ? await request(good, port, 'GET', `/api/v1/leads?campaignId=${campaignId}&limit=50`, headers)
            : await request(
                good,
                port,
                'POST',
                '/api/v1/leads',
                headers,
                JSON.stringify({ campaignId, phoneNumber: `+1415777${String(i).padStart(4, '0')}` }),
              ),
        );
        await new Promise((r) => setTimeout(r, 20));
      }
    })();

    // Connected in batches: a burst of thousands of SYNs overflows the listen backlog.
    const idle: RawClient[] = [];
    for (let i = 0; i < IDLE; i += 100)
      idle.push(...(await Promise.all(Array.from({ length: Math.min(100, IDLE - i) }, () => connect(port)))));
    const loris = await Promise.all(Array.from({ length: LORIS }, () => connect(port)));
    for (const c of loris) c.dribble(`GET /api/health HTTP/1.1\r\nHost: t\r\nx-slow: ${'s'.repeat(10_000)}\r\n\r\n`, 100);
    const bodies = await Promise.all(Array.from({ length: BODIES }, () => connect(port)));
    for (const c of bodies) {
      c.socket.write(
        `POST /api/v1/leads HTTP/1.1\r\nHost: t\r\nx-api-key: ${key}\r\ncontent-type: application/json\r\ncontent-length: 100000\r\n\r\n{`,
      );
      c.dribble(' '.repeat(10_000), 100);
    }

    const flooder = new http.Agent({ keepAlive: true, maxSockets: 50 });
    const flood = await Promise.all(
      Array.from({ length: FLOOD }, (_, i) =>
        request(flooder, port, 'GET', `/api/v1/leads?campaignId=${campaignId}`, i % 2 ? { 'x-api-key': `ll_guess${i}` } : {}),
      ),
    );
    flooder.destroy();

    const closedAt = await Promise.all([...idle, ...loris, ...bodies].map((c) => c.closed));
    attacking = false;
    await wellBehaved;
    good.destroy();

    // the flood was turned away, in the envelope, without a single 5xx
    const floodStatuses = new Set(flood.map((a) => a.status));
    expect(
      [...floodStatuses].every((s) => s === 401 || s === 429),
      [...floodStatuses].join(),
    ).toBe(true);
    expect(floodStatuses.has(429)).toBe(true);
    for (const a of flood.slice(0, 100)) expect(isEnvelope(JSON.parse(a.body))).toBe(true);

    // every slow socket was closed by the server, by its deadline
    const idleMax = Math.max(...closedAt.slice(0, IDLE));
    const lorisMax = Math.max(...closedAt.slice(IDLE, IDLE + LORIS));
    const bodyMax = Math.max(...closedAt.slice(IDLE + LORIS));
    expect(idleMax).toBeLessThan(HEADERS_MS + SLACK_MS);
    expect(lorisMax).toBeLessThan(HEADERS_MS + SLACK_MS);
    expect(Math.min(...closedAt.slice(IDLE, IDLE + LORIS))).toBeGreaterThanOrEqual(HEADERS_MS - 100);
    expect(Math.min(...closedAt.slice(IDLE + LORIS))).toBeGreaterThanOrEqual(REQUEST_MS - 100);
    expect(bodyMax).toBeLessThan(REQUEST_MS + SLACK_MS);
    // What arrived is a 408. The server writes it and closes at once, as Node
    // does; the client is still sending, so the close is a reset, and on a
    // loaded machine the reset can overtake the 408 before the client reads
    // it, for a whole group at once (seen twice in ~30 loaded runs: loris 0 of
    // 100 read, every one ECONNRESET, bodies 100 of 100). So this counts what
    // was read rather than demanding it; one socket at a time, the 408
    // envelope is asserted exactly in connection-limits.test.ts.
    const answered = (group: RawClient[]) => group.filter((c) => c.received() !== '').length;
    for (const c of [...loris, ...bodies]) if (c.received() !== '') expect(c.received()).toMatch(/^HTTP\/1\.1 408 /);
    expect(answered(loris) + answered(bodies), 'no slow socket read its 408').toBeGreaterThan(0);

    // and the well-behaved client was served, promptly, all along
    expect(goodAnswers.length).toBeGreaterThan(20);
    expect(goodAnswers.filter((a) => a.status >= 300)).toEqual([]);
    const times = goodAnswers.map((a) => a.ms).sort((a, b) => a - b);
    const slowest = times.at(-1)!;
    const median = times[Math.floor(times.length / 2)]!;
    expect(slowest).toBeLessThan(GOOD_CLIENT_MAX_MS);
    expect(median).toBeLessThan(GOOD_CLIENT_MEDIAN_MS);
    console.log(
      `slow clients: ${IDLE} idle closed by ${idleMax} ms, loris by ${lorisMax} ms, bodies by ${bodyMax} ms; ` +
        `408s read: loris ${answered(loris)}, bodies ${answered(bodies)}; ` +
        `good client ${goodAnswers.length} requests, median ${Math.round(median)} ms, slowest ${Math.round(slowest)} ms`,
    );
  }, 60_000);
});
