/**
 * The `leadline` command. Commander parses; each action is a few lines over
 * the same services the HTTP API uses. Exit codes: 0 ok, 1 failed, 2 usage.
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import { createKey, listKeys, revokeKey } from '../auth/service.js';
import { createCampaign, createCompany } from '../campaigns/service.js';
import { ConfigError, loadConfig } from '../config.js';
import { AppError } from '../errors.js';
import { serveForever } from '../server.js';
import { output, positiveInt, UsageError, withDb } from './context.js';

const arg =
  <T>(parse: (raw: string) => T) =>
  (raw: string): T => {
    try {
      return parse(raw);
    } catch (err) {
      throw new InvalidArgumentError((err as Error).message);
    }
  };

export function buildProgram(): Command {
  const program = new Command('leadline')
    .description('Lead management API and calling queue for outbound calling')
    .showHelpAfterError();

  program
    .command('serve')
    .description('start the HTTP API (PORT, HOST, DATABASE_URL, REDIS_URL; migrates on start)')
    .action(() => serveForever(loadConfig()));

  program
    .command('migrate')
    .description('bring the database schema up to date')
    .action(() => withDb(async () => void process.stdout.write('database is up to date\n')));

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

  const campaign = program.command('campaign').description('campaigns');
  campaign
    .command('create')
    .requiredOption('--company <id>', 'owning company')
    .requiredOption('--name <name>', 'campaign name')
    .option('--predial-url <url>', 'predial function (prefetch mode) URL')
    .option('--timezone <iana>', 'campaign timezone, e.g. America/New_York')
    .option('--hours <spec>', 'calling hours, e.g. "mon-fri 09:00-17:00"')
    .option('--max-attempts <n>', 'call attempts before a lead is exhausted', arg(positiveInt('--max-attempts')))
    .option('--json', 'print JSON')
    .action((o) =>
      withDb(async (db) => {
        const result = await createCampaign(db, {
          companyId: o.company,
          name: o.name,
          predial_url: o.predialUrl,
          timezone: o.timezone,
          hours: o.hours,
          max_attempts: o.maxAttempts,
        });
        output(o.json, result, `campaignId: ${result.campaignId}`);
      }),
    );

  const key = program.command('key').description('API keys');
  key
    .command('create')
    .requiredOption('--company <id>', 'owning company')
    .requiredOption('--name <name>', 'a descriptive name')
    .addOption(new Option('--scope <scope>', 'read, or write (includes read)').choices(['read', 'write']).makeOptionMandatory())
    .option('--campaign <id>', 'restrict the key to one campaign')
    .option('--json', 'print JSON')
    .action((o) =>
      withDb(async (db) => {
        const result = await createKey(db, { companyId: o.company, name: o.name, scope: o.scope, campaignId: o.campaign });
        output(o.json, result, `keyId: ${result.keyId}\nkey:   ${result.key}\n(the key value is shown this once; store it now)`);
      }),
    );
  key
    .command('list')
    .requiredOption('--company <id>', 'company')
    .option('--json', 'print JSON')
    .action((o) =>
      withDb(async (db) => {
        const keys = await listKeys(db, o.company);
        const lines = keys.map(
          (k) => `${k.keyId}  ${k.status.padEnd(7)}  ${k.scope.padEnd(5)}  ${k.campaignId ?? 'all campaigns'}  ${k.name}  created ${k.createdAt}  last used ${k.lastUsedAt ?? 'never'}`,
        );
        output(o.json, keys, lines.join('\n') || 'no keys');
      }),
    );
  key
    .command('revoke')
    .argument('<keyId>', 'the key id (not the key value)')
    .option('--json', 'print JSON')
    .action((keyId: string, o) =>
      withDb(async (db) => {
        const revoked = await revokeKey(db, keyId);
        if (!revoked) throw new AppError('not_found', `no active key ${keyId}`);
        output(o.json, { keyId, revoked: true }, `revoked ${keyId}`);
      }),
    );
  return program;
}

export async function main(argv: string[]): Promise<void> {
  try {
    await buildProgram().parseAsync(argv);
  } catch (err) {
    const usage = err instanceof UsageError || err instanceof ConfigError;
    process.stderr.write(`leadline: ${(err as Error).message}\n`);
    process.exitCode = usage ? 2 : 1;
  }
}
