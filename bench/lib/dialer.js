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
import { createDb } from '../../dist/db/index.js';
import { parseDatabaseUrl } from '../../dist/config.js';
import { LEADLINE_BIN, cpuMs, peakRssMb } from './procs.js';

/** null when the dialer is not there (yet) */
export async function dialerApi() {
  try {
    const claims = await import('../../dist/dialer/claim-repository.js');
    const { updateCampaign } = await import('../../dist/campaigns/service.js');
    return typeof claims.claimPlan === 'function' && typeof updateCampaign === 'function' ? { ...claims, updateCampaign } : null;
  } catch {
    return null;
  }
}

export async function benchDialer({ api, url, campaignId, workers, concurrency, warmSeconds, seconds, logFile, log }) {
  const db = createDb(parseDatabaseUrl(url), { pgPoolSize: 2 });
  const children = [];
  try {
    await api.updateCampaign(db, campaignId, {
      provider: 'simulate',
      hours: 'mon-sun 00:00-24:00',
      local_window: '00:00-24:00',
      concurrency,
    });
    const row = await db.kysely.selectFrom('campaigns').selectAll().where('id', '=', campaignId).executeTakeFirstOrThrow();
    const plan = (
      await api.claimPlan(db, {
        campaignId,
        maxAttempts: row.max_attempts,
        workerId: 'bench-explain',
        limit: concurrency,
        now: Date.now(),
        leaseMs: 60_000,
      })
    ).join('\n');
    const out = openSync(logFile, 'a');
    for (let i = 0; i < workers; i++) {
      const child = spawn(process.execPath, [LEADLINE_BIN, 'dialer', '--campaign', campaignId, '--simulate-duration', '0s'], {
        env: { ...process.env, DATABASE_URL: url, LOG_LEVEL: 'info' },
        stdio: ['ignore', out, out],
      });
      children.push({ child, exited: new Promise((r) => child.once('exit', r)) });
    }
    const count = async () =>
      Number(
        (await sql`select count(*) as n from attempts where campaign_id = ${campaignId}`.execute(db.kysely)).rows[0].n,
      );
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
    await Promise.race([Promise.all(children.map((c) => c.exited)), new Promise((r) => setTimeout(r, 15_000))]);
    for (const c of children) if (c.child.exitCode === null && c.child.signalCode === null) c.child.kill('SIGKILL');
    await db.close();
  }
}

/** an index, and no sequential scan anywhere in the plan */
export const planUsesIndexOnly = (plan) => /Index/.test(plan) && !/Seq Scan/.test(plan);
