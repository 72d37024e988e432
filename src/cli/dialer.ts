/**
 * `leadline dialer`: the worker process itself (not a wrapper around a
 * child). SIGTERM or SIGINT: stop claiming, let calls in flight finish
 * within --grace, release the rest, close the database, exit 0.
 */
import type { Command } from 'commander';
import { loadConfig } from '../config.js';
import { secretsFor } from '../crypto/secrets.js';
import { OutboundPolicy, setOutboundPolicy } from '../net/outbound.js';
import { openStore } from '../store/index.js';
import { parseDuration, parseDurationRange } from '../scheduling/duration.js';
import { liveDialers } from '../dialer/heartbeat.js';
import { Dialer } from '../dialer/worker.js';
import { AppError } from '../errors.js';
import { createLogger } from '../logger.js';
import { arg, output, positiveInt, withStore } from './context.js';
import { announceDatabase } from './database.js';

/**
 * Node fires a timer whose delay is past 2^31-1 ms (about 24.8 days) at once: a 25-day --grace
 * was 1 ms. Durations stop at a whole 24 days, below that, so the limit reads as it is.
 */
const MAX_DURATION_MS = 24 * 86_400_000;
const MAX_TIMER = '24d';

function duration(name: string, minMs = 0) {
  return (raw: string): number => {
    const ms = parseDuration(raw);
    if (ms < minMs) throw new Error(`${name} must be at least ${minMs / 1000}s, got "${raw}"`);
    if (ms > MAX_DURATION_MS) throw new Error(`${name} must be at most ${MAX_TIMER}, got "${raw}"`);
    return ms;
  };
}

/** "2s" or "1s-5s" */
function durationRange(raw: string): [number, number] {
  let range: [number, number];
  try {
    range = parseDurationRange(raw);
  } catch (err) {
    throw new Error(`--simulate-duration: ${(err as Error).message}`);
  }
  if (range[1] > MAX_DURATION_MS) throw new Error(`--simulate-duration must be at most ${MAX_TIMER}, got "${raw}"`);
  return range;
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

export function registerDialer(program: Command): void {
  const dialer = program
    .command('dialer')
    .description('run the dialer: call due leads by priority, schedule and calling hours (SIGTERM drains and exits 0)')
    .option('--campaign <id>', 'serve only this campaign (repeatable; default: all campaigns)', collect)
    .option('--once', 'call everything due now, wait for those calls to finish, and exit')
    .option(
      '--claim-timeout <duration>',
      "a dead worker's claims lapse after this; calls in flight renew theirs (default 60s)",
      arg(duration('--claim-timeout', 1000)),
    )
    .option(
      '--poll-interval <duration>',
      'at most how long a campaign with nothing due waits before it is checked again; new leads, due times and calling hours wake it sooner (default 60s)',
      arg(duration('--poll-interval', 1000)),
    )
    .option(
      '--grace <duration>',
      'on SIGTERM, how long calls in flight may take to finish before they are hung up (default 30s)',
      arg(duration('--grace')),
    )
    .option(
      '--max-calls <n>',
      "calls in flight this worker runs at most, over all its campaigns (default: only each campaign's --concurrency caps it)",
      arg(positiveInt('--max-calls')),
    )
    .option('--predial-timeout <duration>', 'how long the predial function may take (default 5s)', arg(duration('--predial-timeout', 1000)))
    .option(
      '--simulate-duration <range>',
      "simulate provider: call duration for every campaign, e.g. 2s or 1s-5s (default: each campaign's --simulate-duration)",
      arg(durationRange),
    )
    .action(async (o) => {
      const config = loadConfig();
      // predial and the webhook provider go only where OUTBOUND_ALLOW lets them (src/net/outbound.ts)
      setOutboundPolicy(new OutboundPolicy(config.outboundAllow));
      const logger = createLogger(config.logLevel);
      announceDatabase(config.database, { create: false });
      const store = openStore(config.database, {
        pgPoolSize: config.pgPoolSize,
        pgStatementTimeoutMs: config.pgStatementTimeoutMs,
        pgListenUrl: config.pgListenUrl,
      });
      try {
        await store.migrate();
        const ids: string[] | null = o.campaign ?? null;
        if (ids) {
          const found = new Set((await store.campaigns.list(ids)).map((c) => c.id));
          const missing = ids.find((id) => !found.has(id));
          if (missing) throw new AppError('not_found', `campaign ${missing} not found`);
        }
        const dialer = new Dialer({
          store,
          logger,
          campaignIds: ids,
          claimTimeoutMs: o.claimTimeout ?? 60_000,
          pollIntervalMs: o.pollInterval ?? 60_000,
          predialTimeoutMs: o.predialTimeout ?? 5000,
          maxCalls: o.maxCalls,
          // absent: each campaign's own simulate duration
          simulateDurationMs: o.simulateDuration,
          publicUrl: config.publicUrl,
          secrets: secretsFor(config.secretKey),
        });
        let stopped: Promise<void> | undefined;
        const stop = (signal: string) => {
          logger.info({ signal, callsInFlight: dialer.callsInFlight }, 'dialer stopping');
          stopped ??= dialer.stop(o.grace ?? 30_000);
        };
        process.once('SIGTERM', stop);
        process.once('SIGINT', stop);
        logger.info({ worker: dialer.workerId, campaigns: ids ?? 'all', once: Boolean(o.once) }, 'dialer started');
        try {
          if (o.once) logger.info(await dialer.runOnce(), 'dialer finished: everything due was called');
          else await dialer.run();
          await stopped;
        } finally {
          process.removeListener('SIGTERM', stop);
          process.removeListener('SIGINT', stop);
        }
      } finally {
        await store.close();
      }
    });

  dialer
    .command('status')
    .description('the running dialers: id, host, campaigns, calls in flight, last claim')
    .option('--json', 'print JSON')
    .action((o) =>
      withStore(async (store) => {
        const now = Date.now();
        const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
        const live = (await liveDialers(store, now)).map((d) => ({
          id: d.id,
          host: d.host,
          pid: d.pid,
          campaigns: d.campaigns === 'all' ? 'all' : d.campaigns.split(','),
          callsInFlight: d.calls_in_flight,
          startedAt: iso(d.started_at),
          lastHeartbeatAt: iso(d.heartbeat_at),
          lastClaimAt: iso(d.last_claim_at),
        }));
        const lines = live.map(
          (d) =>
            `${d.id}  host ${d.host}  campaigns ${Array.isArray(d.campaigns) ? d.campaigns.join(',') : d.campaigns}  in flight ${d.callsInFlight}  last claim ${d.lastClaimAt ?? 'never'}`,
        );
        output(o.json, live, lines.join('\n') || 'no dialer is running');
      }),
    );
}
