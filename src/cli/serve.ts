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
    .action(() => withStore(async (_store, _config, applied) => void process.stdout.write(migrated(applied)), { create: true }));
}

/** what migrate did: on a new database, every migration, named first and last */
function migrated(applied: string[]): string {
  if (applied.length === 0) return 'database is up to date (no migration to apply)\n';
  const which = applied.length === 1 ? applied[0] : `${applied[0]} … ${applied.at(-1)}`;
  return `applied ${applied.length} migration${applied.length === 1 ? '' : 's'} (${which}); database is up to date\n`;
}
