import type { Command } from 'commander';
import { createUser, type IssuedPassword, listUsers, resetPassword } from '../web/accounts.js';
import { signInUrl } from '../web/links.js';
import { output, withStore } from './context.js';

const handOver = (issued: IssuedPassword, url: string) =>
  [
    `userId:            ${issued.userId}`,
    `email:             ${issued.email}`,
    `one-time password: ${issued.oneTimePassword}`,
    `sign in at:        ${url}`,
    `(valid for one sign-in until ${issued.expiresAt}; the user then chooses a password.`,
    ' Only a hash is stored: pass it on now.)',
  ].join('\n');

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
        const issued = await createUser(store, { companyId: o.company, email: o.email });
        const url = signInUrl(config, o.url);
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
        const issued = await resetPassword(store, o.email);
        const url = signInUrl(config, o.url);
        output(o.json, { ...issued, signInUrl: url }, handOver(issued, url));
      }),
    );
  user
    .command('list')
    .requiredOption('--company <id>', 'company')
    .option('--json', 'print JSON')
    .action((o) =>
      withStore(async (store) => {
        const users = await listUsers(store, o.company);
        const lines = users.map(
          (u) => `${u.userId}  ${u.email}  created ${u.createdAt}  ${u.passwordSet ? 'password set' : 'awaiting first sign-in'}`,
        );
        output(o.json, users, lines.join('\n') || 'no users');
      }),
    );
}
