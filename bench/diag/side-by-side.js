#!/usr/bin/env node
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { diagLoad } from '../lib/data.js';
import { throughput } from '../lib/load.js';
import { killAll, leadlineEnv, start } from '../lib/procs.js';
import { diagStore } from '../lib/stores.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const [what = 'list', kind = 'sqlite', seconds = '5', rounds = '6', ...builds] = process.argv.slice(2);

const { tmp, store, campaign, headers: H } = await diagStore(kind, 'side-by-side');
try {
  const servers = [];
  for (const build of builds.length ? builds : ['this']) {
    const [label, repo = ROOT] = build.split('=');
    const bin = join(repo, 'bin', 'leadline.js');
    const env = leadlineEnv({ DATABASE_URL: store.url });
    servers.push({ label, srv: await start(label, [bin, 'serve'], env, '/api/health', join(tmp, `${servers.length}.log`)) });
  }
  const { seed, make } = diagLoad(what, campaign, H);
  await fetch(`${servers[0].srv.url}/api/v1/leads/bulk`, {
    method: 'POST',
    headers: { ...H, 'content-type': 'application/json' },
    body: seed,
  });
  const connections = Math.ceil(50 / servers.length);
  for (const { srv } of servers) await throughput(srv.url, make, { connections, seconds: 2 });
  const totals = servers.map(() => ({ answered: 0, cpu: 0 }));
  for (let r = 0; r < Number(rounds); r++) {
    const runs = await Promise.all(
      servers.map(({ srv }) => throughput(srv.url, make, { connections, seconds: Number(seconds), server: srv })),
    );
    runs.forEach((x, i) => {
      totals[i].answered += x.answered;
      totals[i].cpu += x.cpuUs * x.answered;
    });
    console.log(`round ${r}: ${runs.map((x, i) => `${servers[i].label} ${x.cpuUs.toFixed(0)} µs`).join(', ')}`);
  }
  for (const [i, { label }] of servers.entries())
    console.log(
      `${label.padEnd(20)} ${(totals[i].cpu / totals[i].answered).toFixed(1).padStart(7)} µs of server CPU per request (${totals[i].answered} requests)`,
    );
  for (const { srv } of servers) await srv.stop();
} finally {
  killAll();
  await store.drop();
}
