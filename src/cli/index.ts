/**
 * The `leadline` command. Commander parses; each command group lives in its
 * own file and is a few lines over the same services the HTTP API uses.
 * Exit codes: 0 ok, 1 failed, 2 usage or configuration error.
 */
import { createRequire } from 'node:module';
import { Command, CommanderError } from 'commander';
import { ConfigError } from '../config.js';
import { registerCampaign } from './campaign.js';
import { registerCompany } from './company.js';
import { UsageError } from './context.js';
import { registerDialer } from './dialer.js';
import { registerDnc } from './dnc.js';
import { registerExport } from './export.js';
import { registerImport } from './import.js';
import { registerKey } from './key.js';
import { registerLead } from './lead.js';
import { registerOpenApi } from './openapi.js';
import { registerPurge } from './purge.js';
import { registerServe } from './serve.js';
import { registerUser } from './user.js';
import { registerWebhook } from './webhook.js';

const { version } = createRequire(import.meta.url)('../../package.json') as { version: string };

export function buildProgram(): Command {
  const program = new Command('leadline')
    .description('Lead management API and calling queue for outbound calling')
    .version(version)
    .showHelpAfterError()
    // Commander exits 1 on the usage errors it finds itself (a missing option,
    // an unknown command); throwing instead lets main() give them the 2 that
    // scripts expect for bad usage. Set before the commands are added, which
    // inherit it.
    .exitOverride();
  registerServe(program);
  registerCompany(program);
  registerCampaign(program);
  registerLead(program);
  registerDialer(program);
  registerKey(program);
  registerUser(program);
  registerWebhook(program);
  registerOpenApi(program);
  registerImport(program);
  registerExport(program);
  registerDnc(program);
  registerPurge(program);
  return program;
}

export async function main(argv: string[]): Promise<void> {
  try {
    await buildProgram().parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      // commander has printed its message (or the help) already
      process.exitCode = err.exitCode === 0 ? 0 : 2;
      return;
    }
    const usage = err instanceof UsageError || err instanceof ConfigError;
    process.stderr.write(`leadline: ${(err as Error).message}\n`);
    process.exitCode = usage ? 2 : 1;
  }
}
