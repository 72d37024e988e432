import type { Command } from 'commander';
import { createCompany } from '../campaigns/service.js';
import { output, withDb } from './context.js';

export function registerCompany(program: Command): void {
  const company = program.command('company').description('companies');
  company
    .command('create')
    .requiredOption('--name <name>', 'company name')
    .option('--json', 'print JSON')
    .action((o) =>
      withDb(async (db) => {
        const result = await createCompany(db, o.name);
        output(o.json, result, `companyId: ${result.companyId}`);
      }),
    );

}
