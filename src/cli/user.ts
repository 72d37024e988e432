import type { Command } from 'commander';
import { createUser, type IssuedPassword, listUsers, resetPassword } from '../web/accounts.js';
import type { Config } from '../config.js';
import { signInUrl } from '../web/links.js';
import { output, requireCompany, UsageError, withStore } from './context.js';

const handOver = (issued: IssuedPassword, url: string) =>
  [
    `userId:            ${issued.userId}`,
    `email:             ${issued.email}`,
    `one-time password: ${issued.oneTimePassword}`,
    `sign in at:        ${url}`,
    `(valid for one sign-in until ${issued.expiresAt}; the user then chooses a password.`,
    ' Only a hash is stored: pass it on now.)',
  ].join('\n');

/** checked before the password is made: a link to port 0 would hand over a password nobody can use there */
function signIn(config: Config, base: string | undefined): string {
  // the link is printed for someone to open: a javascript: or file: "base" would be one to click
  if (base !== undefined && !/^https?:\/\/[^\s/]+/i.test(base)) throw new UsageError(`--url must be an http(s) address, got "${base}"`);
  if (!base && config.port === 0) {
    throw new UsageError("PORT=0 picks a free port at every start, so the sign-in link is unknown: give the server's address with --url");
  }
  return signInUrl(config, base);
}

export function registerUser(program: Command): void {
  const user = program.command('user').description('dashboard users (each belongs to one company)');
  user
    .command('create')
    .description('create a user and print a one-time password for the first sign-in')
    .requiredOption('--company <id>', 'the company the user belongs to')
    .requiredOption('--email <email>', 'sign-in email')
    .option('--url <base>', 'public base URL of the server, for the sign-in link (default: from HOST and PORT)')
    .option('--json', 'print JSON')
    .action((o) =>
      withStore(async (store, config) => {
        const url = signIn(config, o.url);
        const issued = await createUser(store, { companyId: o.company, email: o.email });
        output(o.json, { ...issued, signInUrl: url }, handOver(issued, url));
      }),
    );
  user
    .command('reset-password')
    .description("replace the user's password with a new one-time password; signs them out everywhere")
    .requiredOption('--email <email>', 'sign-in email')
    .option('--url <base>', 'public base URL of the server, for the sign-in link')
    .option('--json', 'print JSON')
    .action((o) =>
      withStore(async (store, config) => {
        const url = signIn(config, o.url);
        const issued = await resetPassword(store, o.email);
        output(o.json, { ...issued, signInUrl: url }, handOver(issued, url));
      }),
    );
  user
    .command('list')
    .requiredOption('--company <id>', 'company')
    .option('--json', 'print JSON')
    .action((o) =>
      withStore(async (store) => {
        await requireCompany(store, o.company);
        const users = await listUsers(store, o.company);
        const lines = users.map(
          (u) => `${u.userId}  ${u.email}  created ${u.createdAt}  ${u.passwordSet ? 'password set' : 'awaiting first sign-in'}`,
        );
        output(o.json, users, lines.join('\n') || 'no users');
      }),
    );
}
