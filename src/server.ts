/**
 * `leadline serve`: migrate, seed a demo on an empty database, listen, and on
 * SIGTERM/SIGINT stop accepting, finish in-flight requests, close everything.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { FastifyInstance } from 'fastify';
import { createKey } from './auth/service.js';
import { createCampaign, createCompany } from './campaigns/service.js';
import type { Config } from './config.js';
import { openStore, type Store } from './store/index.js';
import { buildApp } from './http/app.js';
import { createLogger, printAfterLogs } from './logger.js';
import { createRateLimiter } from './ratelimit/index.js';
import { OutboundPolicy } from './net/outbound.js';
import { secretsFor } from './crypto/secrets.js';
import { WebhookDeliverer } from './webhooks/deliverer.js';
import { createUser } from './web/accounts.js';

interface RunningServer {
  readonly app: FastifyInstance;
  readonly url: string;
  close(): Promise<void>;
}

const DEMO_EMAIL = 'demo@example.com';

interface Demo {
  companyId: string;
  campaignId: string;
  key: string;
  email: string;
  password: string;
}

/**
 * On a database with no company at all, make one ready-to-curl demo. The
 * check and the writes are one transaction: two servers starting together on
 * a new database each found no company and made a demo (one with a key
 * nobody saw), or the second failed on the demo user's email. On SQLite the
 * write transaction (BEGIN IMMEDIATE) serialises them; on PostgreSQL the
 * transaction-scoped advisory lock does, and the second's check, a new
 * statement under READ COMMITTED, sees the first's company once it waited
 * for its commit (test/db/migrate-processes.test.ts).
 */
function seedDemo(store: Store): Promise<Demo | null> {
  return store.transaction(
    async (tx) => {
      if (await tx.companies.any()) return null;
      const { companyId } = await createCompany(tx, 'Demo company');
      const { campaignId } = await createCampaign(tx, { companyId, name: 'Demo campaign', hours: 'mon-sun 00:00-24:00' });
      const { key } = await createKey(tx, { companyId, name: 'demo write key', scope: 'write' });
      const { email, oneTimePassword: password } = await createUser(tx, { companyId, email: DEMO_EMAIL });
      return { companyId, campaignId, key, email, password };
    },
    { lock: 'leadline demo' },
  );
}

function demoText(demo: Demo, base: string): string {
  return [
    '',
    'First start: a demo company, campaign, write key and dashboard user were created.',
    `  companyId:  ${demo.companyId}`,
    `  campaignId: ${demo.campaignId}`,
    `  API key:    ${demo.key}   (shown once; only its hash is stored)`,
    'Try it:',
    `  curl -s -X POST ${base}/api/v1/leads -H 'x-api-key: ${demo.key}' -H 'content-type: application/json' \\`,
    `    -d '{"campaignId":"${demo.campaignId}","phoneNumber":"+14155550123"}'`,
    `  curl -s '${base}/api/v1/leads?campaignId=${demo.campaignId}' -H 'x-api-key: ${demo.key}'`,
    `Dashboard: ${base}/dashboard/login`,
    `  email ${demo.email}, one-time password ${demo.password} (one sign-in, then choose a password)`,
    '',
  ].join('\n');
}

/** how to get in when the demo's key and password were never seen (an older start printed them and failed) */
function accessHint(companyId: string): string {
  return [
    '',
    `The demo user ${DEMO_EMAIL} has never signed in. If its key and one-time password were lost, make new ones:`,
    `  leadline key create --company ${companyId} --name "my key" --scope write`,
    `  leadline user reset-password --email ${DEMO_EMAIL}`,
    '',
  ].join('\n');
}

/**
 * Where curl and a browser on this machine reach the server: the address
 * listen() returns carries the port really bound (PORT=0 picks one), and a
 * wildcard listen address (`::`) is not somewhere to send a request to.
 */
function localBase(address: string): string {
  const url = new URL(address);
  if (url.hostname === '[::]' || url.hostname === '0.0.0.0') url.hostname = '127.0.0.1';
  return url.origin;
}

export interface ServeOptions {
  seed?: boolean;
  /** deliver webhooks from this process (default true; `leadline serve --no-deliver` turns it off) */
  deliver?: boolean;
}

async function startServer(config: Config, opts: ServeOptions = {}): Promise<RunningServer> {
  const logger = createLogger(config.logLevel);
  const store = openStore(config.database, {
    pgPoolSize: config.pgPoolSize,
    pgStatementTimeoutMs: config.pgStatementTimeoutMs,
  });
  await store.migrate();
  const limiter = await createRateLimiter({ redisUrl: config.redisUrl, keyPrefix: config.redisKeyPrefix, logger });
  const app = await buildApp({ config, store, limiter, logger });
  let address: string;
  try {
    address = await app.listen({ host: config.host, port: config.port });
  } catch (err) {
    // nothing was seeded: the next start that listens creates and prints the demo
    await app.close();
    await limiter.close();
    await store.close();
    throw err;
  }
  logger.info({ address, database: config.database.kind, redis: Boolean(config.redisUrl) }, 'leadline listening');
  const deliverer =
    opts.deliver === false
      ? null
      : new WebhookDeliverer({
          store,
          owner: `serve:${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`,
          outbound: new OutboundPolicy(config.outboundAllow),
          logger: logger.child({ component: 'webhooks' }),
          retentionMs: config.eventRetentionMs,
          secrets: secretsFor(config.secretKey),
        });
  deliverer?.start();
  const stopStatistics = store.keepStatistics((err) =>
    logger.warn({ err }, 'could not analyze leads; run ANALYZE leads (docs/operations.md)'),
  );
  // Only once listening: a start that fails (the port taken) must not create a
  // demo whose one-time credentials nobody saw.
  if (opts.seed !== false) {
    const demo = await seedDemo(store);
    if (demo) printAfterLogs(logger, `${demoText(demo, localBase(address))}\n`);
    else {
      const user = await store.users.byEmail(DEMO_EMAIL);
      if (user && user.password_hash === null) printAfterLogs(logger, `${accessHint(user.company_id)}\n`);
    }
  }
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      await deliverer?.stop(); // requests cut short stay unsent: the next round of any instance sends them
      await drain(app, config.server.shutdownGraceMs);
      await limiter.close();
      await stopStatistics();
      await store.close();
    })());
  return { app, url: address, close };
}

/**
 * Stops accepting and waits for the requests in flight, for at most `graceMs`;
 * then cuts the connections still open. Node stops enforcing
 * REQUEST_TIMEOUT_MS once its server is closing, so without a bound one client
 * stalled halfway through a body held a SIGTERM'd server for 60-74 s (its
 * socket's idle and keep-alive timeouts), past a container's stop timeout
 * (Docker's is 10 s), which then kills it.
 */
async function drain(app: FastifyInstance, graceMs: number): Promise<void> {
  const cut = setTimeout(() => {
    app.log.warn({ graceMs }, 'requests still in flight after SHUTDOWN_GRACE_MS: closing their connections');
    app.server.closeAllConnections();
  }, graceMs);
  try {
    await app.close();
  } finally {
    clearTimeout(cut);
  }
}

/** Runs until SIGTERM/SIGINT, then drains and exits. */
export async function serveForever(config: Config, opts: ServeOptions = {}): Promise<void> {
  const server = await startServer(config, opts);
  const stop = (signal: string) => {
    server.app.log.info({ signal }, 'shutting down');
    server.close().then(
      () => process.exit(0),
      (err) => {
        server.app.log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
