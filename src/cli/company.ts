import type { Command } from 'commander';
import { createCompany } from '../campaigns/service.js';
import { formatCallCaps, parseCallCaps } from '../compliance/call-caps.js';
import { arg, output, UsageError, withStore } from './context.js';

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
    .command('update')
    .description("change a company's settings")
    .argument('<companyId>', 'the company')
    .option(
      '--call-caps <caps>',
      'calls placed to one number across all the company\'s campaigns per rolling window, e.g. "3/24h,7/7d"; none turns them off',
      arg(parseCallCaps),
    )
    .option('--json', 'print JSON: {"companyId", "callCaps"}')
    .action((companyId: string, o) =>
      withStore(async (store) => {
        if (o.callCaps === undefined) throw new UsageError('nothing to change: give --call-caps');
        const caps = formatCallCaps(o.callCaps);
        if (!(await store.companies.setCallCaps(companyId, caps === 'none' ? '' : caps))) throw new Error(`company ${companyId} not found`);
        output(o.json, { companyId, callCaps: caps }, `company ${companyId}: call caps ${caps}`);
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
