/**
 * Row 7: the dialer's claims. Four `leadline dialer` worker processes, started
 * as users start them (the compiled CLI), serve one always-open campaign of a
 * million leads with the simulate provider and zero call time; the figure is
 * the rate at which attempts are recorded (each one a lead claimed, called and
 * written back), counted in the attempts table over a window after a warm-up.
 * Its floor is as many workers of bench/floor/dialer.js (the raw driver, three
 * statements a turn of calls), in turns with leadline's on the same campaign.
 * It also prints the plan of the claim statement, which must use an index and
 * no sequential scan.
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { openStore } from '../../dist/store/index.js';
import { parseDatabaseUrl } from '../../dist/config.js';
import { LEADLINE_BIN, cpuMs, peakRssMb } from '../lib/procs.js';
import { fmtRatio } from '../lib/stats.js';
import { check } from './checks.js';

const FLOOR_DIALER = fileURLToPath(new URL('../floor/dialer.js', import.meta.url));
/** the floor workers' ids start with it, so that what they left can be found */
const FLOOR_WORKER = 'floor-';

/** null when the dialer is not there (yet) */
async function dialerApi() {
  try {
    const claims = await import('../../dist/dialer/claim.js');
    const { updateCampaign } = await import('../../dist/campaigns/service.js');
    return typeof claims.claimPlan === 'function' && typeof updateCampaign === 'function' ? { ...claims, updateCampaign } : null;
  } catch {
    return null;
  }
}

/**
 * CPU of every PostgreSQL process on this machine (its backends, WAL writer,
 * checkpointer), in ms: the database's share of a lead. Backends that end
 * inside a window lose theirs, so the workers' connections must outlive it.
 */
function postgresCpuMs() {
  let total = 0;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'postgres') total += cpuMs(pid) || 0;
    } catch {
      // gone meanwhile
    }
  }
  return total;
}

/**
 * `workers` processes started by `command(i)` (argv after node) on the
 * campaign for a warm-up, then a timed window; the attempts written in the
 * window (each a lead claimed, called and recorded), the workers' CPU, their
 * peak RSS. Stopped with SIGTERM, as users stop them.
 */
async function runWorkers({ url, db, campaignId, workers, command, warmSeconds, seconds, logFile }) {
  const children = [];
  try {
    const out = openSync(logFile, 'a');
    try {
      for (let i = 0; i < workers; i++) {
        const child = spawn(process.execPath, command(i), {
          env: { ...process.env, DATABASE_URL: url, LOG_LEVEL: 'info' },
          stdio: ['ignore', out, out],
        });
        children.push({ child, exited: new Promise((r) => child.once('exit', r)) });
      }
    } finally {
      // the children hold their own copies; a turn's descriptor would otherwise stay open for the run
      closeSync(out);
    }
    const count = async () =>
      Number((await sql`select count(*) as n from attempts where campaign_id = ${campaignId}`.execute(db.kysely)).rows[0].n);
    await new Promise((r) => setTimeout(r, warmSeconds * 1000));
    if (children.some((c) => c.child.exitCode !== null)) throw new Error(`a dialer worker exited; see ${logFile}`);
    const n0 = await count();
    const cpu0 = children.map((c) => cpuMs(c.child.pid));
    const pg0 = postgresCpuMs();
    const t0 = Date.now();
    await new Promise((r) => setTimeout(r, seconds * 1000));
    const n1 = await count();
    const elapsed = (Date.now() - t0) / 1000;
    const cpu = children.reduce((acc, c, i) => acc + (cpuMs(c.child.pid) - cpu0[i]), 0);
    const pgCpu = postgresCpuMs() - pg0;
    const rss = Math.max(...children.map((c) => peakRssMb(c.child.pid) ?? 0));
    return { attempts: n1 - n0, seconds: elapsed, cpuMs: cpu, pgCpuMs: pgCpu, rss };
  } finally {
    for (const c of children) if (c.child.exitCode === null) c.child.kill('SIGTERM');
    // unref'd: a pending 15 s timer would otherwise hold the bench open after the workers exit
    await Promise.race([Promise.all(children.map((c) => c.exited)), new Promise((r) => setTimeout(r, 15_000).unref())]);
    for (const c of children) if (c.child.exitCode === null && c.child.signalCode === null) c.child.kill('SIGKILL');
  }
}

/** the rounds of one side added up: leads per second, the workers' and PostgreSQL's CPU per lead, peak RSS */
const total = (runs) => {
  const attempts = runs.reduce((a, r) => a + r.attempts, 0);
  return {
    attempts,
    rate: attempts / runs.reduce((a, r) => a + r.seconds, 0),
    cpuUs: (runs.reduce((a, r) => a + r.cpuMs, 0) * 1000) / attempts,
    pgCpuUs: (runs.reduce((a, r) => a + r.pgCpuMs, 0) * 1000) / attempts,
    rss: Math.max(...runs.map((r) => r.rss)),
  };
};

/**
 * leadline's dialer workers and the floor's (bench/floor/dialer.js), the same
 * number of each, in turns on the same campaign (leadline, floor, leadline, …),
 * so that what one side leaves in the tables and indexes is there for the
 * other's next turn too.
 */
async function benchDialer({ api, url, campaignId, workers, concurrency, rounds, warmSeconds, seconds, logFile, log }) {
  const db = openStore(parseDatabaseUrl(url), { pgPoolSize: 2 });
  try {
    await api.updateCampaign(db, campaignId, {
      provider: 'simulate',
      hours: 'mon-sun 00:00-24:00',
      local_window: '00:00-24:00',
      regional_rules: 'off',
      // a campaign's concurrency holds across all its dialers: 50 per worker is this much in all
      concurrency: concurrency * workers,
    });
    const row = await db.kysely.selectFrom('campaigns').selectAll().where('id', '=', campaignId).executeTakeFirstOrThrow();
    const plan = (
      await api.claimPlan(db, {
        campaignId,
        maxAttempts: row.max_attempts,
        workerId: 'bench-explain',
        limit: concurrency,
        concurrency: concurrency * workers,
        now: Date.now(),
        leaseMs: 60_000,
      })
    ).join('\n');
    const prof = process.env.BENCH_DIALER_PROF ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_DIALER_PROF] : [];
    const sides = {
      // each worker takes its 50 of the campaign's slots, as each floor worker does
      leadline: () => [
        ...prof,
        LEADLINE_BIN,
        'dialer',
        '--campaign',
        campaignId,
        '--simulate-duration',
        '0s',
        '--max-calls',
        String(concurrency),
      ],
      floor: (i) => [FLOOR_DIALER, url, campaignId, String(concurrency), `${FLOOR_WORKER}${process.pid}-${i}`],
    };
    const runs = { leadline: [], floor: [] };
    const common = { url, db, campaignId, workers, warmSeconds, seconds, logFile };
    for (let r = 0; r < rounds; r++) {
      for (const side of ['leadline', 'floor']) {
        log(`postgres: 7 dialer, ${side}, ${workers} workers for ${seconds} s (round ${r + 1} of ${rounds})`);
        runs[side].push(await runWorkers({ ...common, command: sides[side] }));
      }
    }
    // the floor did the work it is credited with: every attempt it opened is closed, and no lead is left held by it
    const { rows: left } = await sql`select
        (select count(*) from attempts where campaign_id = ${campaignId} and worker like ${`${FLOOR_WORKER}%`} and state <> 'closed') as open,
        (select count(*) from leads where campaign_id = ${campaignId} and claimed_by like ${`${FLOOR_WORKER}%`}) as held`.execute(
      db.kysely,
    );
    const floorRuns = total(runs.floor);
    check('dialer', floorRuns.attempts > 0, 'the floor workers recorded no attempt');
    check(
      'dialer',
      Number(left[0].open) === 0 && Number(left[0].held) === 0,
      `the floor left ${left[0].open} attempts open, ${left[0].held} leads held`,
    );
    return { leadline: total(runs.leadline), floor: floorRuns, plan };
  } finally {
    await db.close();
  }
}

/** an index, and no sequential scan anywhere in the plan */
const planUsesIndexOnly = (plan) => /Index/.test(plan) && !/Seq Scan/.test(plan);

/** Row 7 in the table, or "pending the dialer" when there is none yet */
export async function dialerRow(ctx, concurrency) {
  const { S, store, campaigns, base, rows, plans, log } = ctx;
  const api = await dialerApi();
  if (!api) {
    rows.push(pendingDialer());
    return;
  }
  const r = await benchDialer({
    api,
    url: store.url,
    campaignId: campaigns.million,
    workers: 4,
    concurrency,
    rounds: S.dialerRounds,
    warmSeconds: S.dialerWarmSeconds,
    seconds: S.dialerSeconds,
    logFile: ctx.logFile('dialer'),
    log,
  });
  const { leadline: l, floor: f } = r;
  const indexOnly = planUsesIndexOnly(r.plan);
  const seconds = S.dialerRounds * S.dialerSeconds;
  rows.push({
    ...base(7, `dialer: leads claimed + completed, 4 workers, ${S.big.toLocaleString('en-US')}-lead campaign`),
    leadline: `${Math.round(l.rate).toLocaleString('en-US')} leads/s`,
    floor: `${Math.round(f.rate).toLocaleString('en-US')} leads/s`,
    ratio: fmtRatio(l.rate / f.rate),
    ratioValue: l.rate / f.rate,
    target: TARGET,
    met: l.rate >= 2000 && indexOnly,
    note:
      `${l.attempts.toLocaleString('en-US')} attempts in ${seconds} s (${S.dialerRounds} turns), the floor ${f.attempts.toLocaleString('en-US')} ` +
      `in turns between them; simulate provider, 0 s calls, campaign concurrency ${concurrency * 4} (${concurrency} per worker); ` +
      `CPU per lead: workers ${l.cpuUs.toFixed(0)} µs (floor ${f.cpuUs.toFixed(0)} µs), PostgreSQL ${l.pgCpuUs.toFixed(0)} µs ` +
      `(floor ${f.pgCpuUs.toFixed(0)} µs); peak RSS ${l.rss.toFixed(0)} MB per worker; ` +
      `floor: bench/floor/dialer.js, claim, open and close as one statement each for up to ${concurrency} leads, no compliance checks or events; ` +
      `claim plan ${indexOnly ? 'uses an index, no sequential scan' : 'HAS A SEQUENTIAL SCAN OR NO INDEX'} (below)`,
  });
  plans.push({ title: 'PostgreSQL: the dialer claim statement (EXPLAIN)', plan: r.plan });
}

const TARGET = '≥ 2000 leads/s, index plan, no seq scan';
export const pendingDialer = (why = 'pending the dialer') => ({
  n: 7,
  name: 'dialer: leads claimed + completed, 4 workers',
  store: 'PostgreSQL',
  leadline: why,
  target: TARGET,
  met: null,
});
