/**
 * Row 7: the dialer's claims. Four `leadline dialer` worker processes, started
 * as users start them (the compiled CLI), serve one always-open campaign of a
 * million leads with the simulate provider and zero call time; the figure is
 * the rate at which attempts are recorded (each one a lead claimed, called and
 * written back), counted in the attempts table over a window after a warm-up.
 * It also prints the plan of the claim statement, which must use an index and
 * no sequential scan.
 */
import { spawn } from 'node:child_process';
import { openSync } from 'node:fs';
import { sql } from 'kysely';
import { openStore } from '../../dist/store/index.js';
import { parseDatabaseUrl } from '../../dist/config.js';
import { LEADLINE_BIN, cpuMs, peakRssMb } from '../lib/procs.js';

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

async function benchDialer({ api, url, campaignId, workers, concurrency, warmSeconds, seconds, logFile, log }) {
  const db = openStore(parseDatabaseUrl(url), { pgPoolSize: 2 });
  const children = [];
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
    const out = openSync(logFile, 'a');
    for (let i = 0; i < workers; i++) {
      const child = spawn(
        process.execPath,
        [
          ...(process.env.BENCH_DIALER_PROF ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_DIALER_PROF] : []),
          LEADLINE_BIN,
          'dialer',
          '--campaign',
          campaignId,
          '--simulate-duration',
          '0s',
        ],
        {
          env: { ...process.env, DATABASE_URL: url, LOG_LEVEL: 'info' },
          stdio: ['ignore', out, out],
        },
      );
      children.push({ child, exited: new Promise((r) => child.once('exit', r)) });
    }
    const count = async () =>
      Number((await sql`select count(*) as n from attempts where campaign_id = ${campaignId}`.execute(db.kysely)).rows[0].n);
    await new Promise((r) => setTimeout(r, warmSeconds * 1000));
    if (children.some((c) => c.child.exitCode !== null)) throw new Error(`a dialer worker exited; see ${logFile}`);
    const n0 = await count();
    const cpu0 = children.map((c) => cpuMs(c.child.pid));
    const t0 = Date.now();
    log(`postgres: 7 dialer, ${workers} workers for ${seconds} s`);
    await new Promise((r) => setTimeout(r, seconds * 1000));
    const n1 = await count();
    const elapsed = (Date.now() - t0) / 1000;
    const cpu = children.reduce((acc, c, i) => acc + (cpuMs(c.child.pid) - cpu0[i]), 0);
    const rss = Math.max(...children.map((c) => peakRssMb(c.child.pid) ?? 0));
    const rate = (n1 - n0) / elapsed;
    return { rate, attempts: n1 - n0, plan, cpuUsPerLead: (cpu * 1000) / (n1 - n0), rss };
  } finally {
    for (const c of children) if (c.child.exitCode === null) c.child.kill('SIGTERM');
    // unref'd: a pending 15 s timer would otherwise hold the bench open after the workers exit
    await Promise.race([Promise.all(children.map((c) => c.exited)), new Promise((r) => setTimeout(r, 15_000).unref())]);
    for (const c of children) if (c.child.exitCode === null && c.child.signalCode === null) c.child.kill('SIGKILL');
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
    warmSeconds: S.dialerWarmSeconds,
    seconds: S.dialerSeconds,
    logFile: ctx.logFile('dialer'),
    log,
  });
  const indexOnly = planUsesIndexOnly(r.plan);
  rows.push({
    ...base(7, `dialer: leads claimed + completed, 4 workers, ${S.big.toLocaleString('en-US')}-lead campaign`),
    leadline: `${Math.round(r.rate).toLocaleString('en-US')} leads/s`,
    target: TARGET,
    met: r.rate >= 2000 && indexOnly,
    note:
      `${r.attempts.toLocaleString('en-US')} attempts in ${S.dialerSeconds} s; simulate provider, 0 s calls, campaign ` +
      `concurrency ${concurrency * 4} (${concurrency} per worker); worker CPU ${r.cpuUsPerLead.toFixed(0)} µs per lead, peak RSS ${r.rss.toFixed(0)} MB per worker; ` +
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
