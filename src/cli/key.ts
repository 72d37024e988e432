import { type Command, Option } from 'commander';
import { createKey, listKeys, revokeKey } from '../auth/service.js';
import { AppError } from '../errors.js';
import { output, requireCompany, withStore } from './context.js';

export function registerKey(program: Command): void {
  const key = program.command('key').description('API keys');
  key
    .command('create')
    .requiredOption('--company <id>', 'owning company')
    .requiredOption('--name <name>', 'a descriptive name')
    .addOption(new Option('--scope <scope>', 'read, or write (includes read)').choices(['read', 'write']).makeOptionMandatory())
    .option('--campaign <id>', 'restrict the key to one campaign')
    .option('--json', 'print JSON')
    .action((o) =>
      withStore(async (store, config) => {
        const result = await createKey(
          store,
          { companyId: o.company, name: o.name, scope: o.scope, campaignId: o.campaign },
          Date.now(),
          config.maxKeysPerCompany,
        );
        output(o.json, result, `keyId: ${result.keyId}\nkey:   ${result.key}\n(the key value is shown this once; store it now)`);
      }),
    );
  key
    .command('list')
    .requiredOption('--company <id>', 'company')
    .option('--json', 'print JSON')
    .action((o) =>
      withStore(async (store) => {
        await requireCompany(store, o.company);
        const keys = await listKeys(store, o.company);
        const lines = keys.map(
          (k) =>
            `${k.keyId}  ${k.status.padEnd(7)}  ${k.scope.padEnd(5)}  ${k.campaignId ?? 'all campaigns'}  ${k.name}  created ${k.createdAt}  last used ${k.lastUsedAt ?? 'never'}`,
        );
        output(o.json, keys, lines.join('\n') || 'no keys');
      }),
    );
  key
    .command('revoke')
    .argument('<keyId>', 'the key id (not the key value)')
    .option('--json', 'print JSON')
    .action((keyId: string, o) =>
      withStore(async (store) => {
        const revoked = await revokeKey(store, keyId);
        if (!revoked) throw new AppError('not_found', `no active key ${keyId}`);
        output(o.json, { keyId, revoked: true }, `revoked ${keyId}`);
      }),
    );
}
