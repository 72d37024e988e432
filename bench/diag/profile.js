#!/usr/bin/env node
/**
 * Where a server's CPU goes, a request at a time: leadline's server and the
 * bench's floor, each alone under the same diag load (row 5's list or single
 * create, or row 2's retry: bench/lib/data.js diagLoad), each started with
 * V8's sampling profiler (`--cpu-prof`). Prints, per answered request, the
 * functions with the most time of their own and the frames with the most time
 * in all (what they call included), in µs. The profiler's sampling makes
 * everything slower by a few percent, so read the figures against each other,
 * not as costs (bench/diag/side-by-side.js and instructions.js compare builds).
 *
 * Usage: npm run build && node bench/diag/profile.js [list|create|retry] [sqlite|postgres] [seconds] [connections] [leadline|floor|both]
 * The profiles stay in bench/profiles/ (ignored by git) for Chrome's DevTools.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { diagLoad } from '../lib/data.js';
import { throughput } from '../lib/load.js';
import { killAll, startFloor, startLeadline } from '../lib/procs.js';
import { diagStore } from '../lib/stores.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const [what = 'retry', kind = 'sqlite', seconds = '15', connections = '4', which = 'both'] = process.argv.slice(2);
const SHOWN = 25;

const { tmp, store, campaign, headers: H } = await diagStore(kind, 'profile');
try {
  const { seed, make } = diagLoad(what, campaign, H);
  for (const [i, name] of (which === 'both' ? ['leadline', 'floor'] : [which]).entries()) {
    const dir = join(ROOT, 'bench', 'profiles', `${what}-${kind}-${name}`);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const nodeArgs = ['--cpu-prof', `--cpu-prof-dir=${dir}`];
    const log = join(tmp, `${name}.log`);
    const srv =
      name === 'leadline'
        ? await startLeadline({ DATABASE_URL: store.url }, log, { nodeArgs })
        : await startFloor(store.url, log, {}, nodeArgs);
    if (i === 0) {
      // the campaign's leads, once, through the first server (the retry's are all there from then on)
      await fetch(`${srv.url}/api/v1/leads/bulk`, { method: 'POST', headers: { ...H, 'content-type': 'application/json' }, body: seed });
    }
    const run = await throughput(srv.url, make, { connections: Number(connections), seconds: Number(seconds), server: srv });
    await srv.stop(); // the profile is written as the process exits
    const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
    console.log(`\n${name}: ${run.answered} requests, ${run.cpuUs.toFixed(0)} µs of server CPU a request (${dir})`);
    report(JSON.parse(readFileSync(join(dir, file), 'utf8')), run.answered);
  }
} finally {
  killAll();
  await store.drop();
}

/** self and total time per frame (function, file, line), in µs per request; a recursive frame counts once */
function report(profile, requests) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const sampled = new Map();
  profile.samples.forEach((id, i) => {
    sampled.set(id, (sampled.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  const name = (n) => {
    const { functionName, url, lineNumber } = n.callFrame;
    return `${functionName || '(anonymous)'} ${url.split('/').slice(-2).join('/')}:${lineNumber + 1}`;
  };
  const self = new Map();
  const total = new Map();
  for (const [id, us] of sampled) {
    const frame = name(byId.get(id));
    self.set(frame, (self.get(frame) ?? 0) + us);
    const seen = new Set();
    for (let at = id; at !== undefined; at = parent.get(at)) {
      const f = name(byId.get(at));
      if (!seen.has(f)) total.set(f, (total.get(f) ?? 0) + us);
      seen.add(f);
    }
  }
  const top = (m) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, SHOWN)
      .map(([f, us]) => `  ${(us / requests).toFixed(1).padStart(8)} µs  ${f}`)
      .join('\n');
  console.log(`time of their own, a request:\n${top(self)}\ntime in all, a request:\n${top(total)}`);
}
