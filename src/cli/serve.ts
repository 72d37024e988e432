import type { Command } from 'commander';
import { loadConfig } from '../config.js';
import { serveForever } from '../server.js';
import { withStore } from './context.js';
import { announceDatabase } from './database.js';

export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('start the HTTP API (PORT, HOST, DATABASE_URL, REDIS_URL; migrates on start)')
    .action(() => {
      const config = loadConfig();
      announceDatabase(config.database, { create: true });
      return serveForever(config);
    });

  program
    .command('migrate')
    .description('bring the database schema up to date')
    .action(() => withStore(async () => void process.stdout.write('database is up to date\n'), { create: true }));
}
