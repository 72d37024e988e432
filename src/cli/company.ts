import type { Command } from 'commander';
import { createCompany } from '../campaigns/service.js';
import { output, withStore } from './context.js';

export function registerCompany(program: Command): void {
  const company = program.command('company').description('companies');
  company
    .command('create')
    .requiredOption('--name <name>', 'company name')
    .option('--json', 'print JSON')
    .action((o) =>
      withStore(async (store) => {
        const result = await createCompany(store, o.name);
        output(o.json, result, `companyId: ${result.companyId}`);
      }),
    );
  company
    .command('list')
    .description('companies, oldest first')
    .option('--json', 'print JSON')
    .action((o) =>
      withStore(async (store) => {
        const list = (await store.companies.list()).map((c) => ({
          companyId: c.id,
          name: c.name,
          createdAt: new Date(Number(c.created_at)).toISOString(),
        }));
        output(o.json, list, list.map((c) => `${c.companyId}  created ${c.createdAt}  ${c.name}`).join('\n') || 'no companies');
      }),
    );
}
