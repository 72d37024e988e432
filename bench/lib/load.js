/**
 * The one client every figure is measured with: autocannon over keep-alive
 * connections to 127.0.0.1. Latency rows use one connection and read each
 * response's own time (autocannon's 'response' event, sub-millisecond), not
 * the integer-millisecond histogram.
 */
import autocannon from 'autocannon';

/**
 * @typedef {{ method?: string, path: string, headers?: Record<string,string>, body?: string }} Req
 * @typedef {{ ms: number[], statuses: Map<number, number> }} Samples
 */

function run(opts, onResponse) {
  return new Promise((resolve, reject) => {
    const instance = autocannon(opts, (err, result) => (err ? reject(err) : resolve(result)));
    instance.on('response', onResponse);
  });
}

/** the request autocannon sends next, built by make(i) with i counting up across all connections */
function requests(make) {
  let i = 0;
  return [
    {
      setupRequest: (req) => {
        const r = make(i++);
        return { ...req, method: r.method ?? 'GET', path: r.path, headers: { ...req.headers, ...r.headers }, body: r.body };
      },
    },
  ];
}

const JSON_HEADERS = { 'content-type': 'application/json' };

/**
 * n requests one after another on one keep-alive connection.
 * @returns {Promise<Samples>}
 */
export async function sequential(url, make, n) {
  const ms = [];
  const statuses = new Map();
  await run(
    // sampleInt: autocannon notices the end only at its next sample tick (1 s by default)
    { url, connections: 1, amount: n, timeout: 60, sampleInt: 10, headers: JSON_HEADERS, requests: requests(make) },
    (_client, status, _bytes, time) => {
      ms.push(time);
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    },
  );
  return { ms, statuses };
}

/**
 * Closed loop: `connections` keep-alive connections, each sending its next
 * request when the last one answered, for `seconds`.
 */
export async function throughput(url, make, { connections, seconds, server }) {
  const statuses = new Map();
  const cpu0 = server?.cpuMs();
  const result = await run(
    // autocannon runs at least about a second whatever `duration` says, and an
    // `amount` run still ends on a sample tick (1 s by default); the smoke
    // run's shorter turns send 20 requests a connection per second of the turn
    // (0.25 s: 250 requests), sampled every 100 ms. A fixed 1000 a turn took
    // 1.6 s a turn of single creates on a slow machine's PostgreSQL, and put
    // the smoke run over its 30 s.
    {
      url,
      connections,
      ...(seconds < 1 ? { amount: Math.ceil(connections * 20 * seconds), sampleInt: 100 } : { duration: seconds }),
      timeout: 30,
      headers: JSON_HEADERS,
      requests: requests(make),
    },
    (_client, status) => statuses.set(status, (statuses.get(status) ?? 0) + 1),
  );
  const answered = [...statuses.values()].reduce((a, b) => a + b, 0);
  // server CPU per answered request: steadier than req/s on a shared machine
  const cpuUs = server ? ((server.cpuMs() - cpu0) * 1000) / answered : NaN;
  return { rps: answered / result.duration, statuses, errors: result.errors + result.timeouts, seconds: result.duration, cpuUs, answered };
}

export function percentile(values, p) {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[idx];
}

export const median = (v) => percentile(v, 50);

/** every response had status `want`; otherwise a readable error */
export function expectStatus(label, statuses, want) {
  const bad = [...statuses].filter(([s]) => s !== want);
  if (bad.length) throw new Error(`${label}: expected only ${want}, got ${bad.map(([s, c]) => `${c}× ${s}`).join(', ')}`);
}

/**
 * Interleaves two targets in `rounds` blocks (A B, then B A, …) so that drift
 * on a shared machine lands on both sides equally.
 */
export async function interleaved(rounds, runA, runB) {
  const a = [];
  const b = [];
  for (let r = 0; r < rounds; r++) {
    if (r % 2 === 0) {
      a.push(await runA(r));
      b.push(await runB(r));
    } else {
      b.push(await runB(r));
      a.push(await runA(r));
    }
  }
  return [a, b];
}
