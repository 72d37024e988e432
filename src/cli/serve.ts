import type { Command } from 'commander';
import { loadConfig } from '../config.js';
import { withStore } from './context.js';
import { announceDatabase } from './database.js';

export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('start the HTTP API and deliver webhooks (PORT, HOST, DATABASE_URL, REDIS_URL; migrates on start)')
    .option('--no-deliver', 'do not deliver webhooks from this process')
    .action(async (o: { deliver: boolean }) => {
      const config = loadConfig();
      announceDatabase(config.database, { create: true });
      // imported here: the server's modules (Fastify, the dashboard, the dialer's
      // webhooks) are most of a CLI start, and only `serve` needs them
      const { serveForever } = await import('../server.js');
      return serveForever(config, { deliver: o.deliver });
    });

  program
    .command('migrate')
    .description('bring the database schema up to date')
    .action(() => withStore(async () => void process.stdout.write('database is up to date\n'), { create: true }));
}
