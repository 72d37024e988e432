#!/usr/bin/env node
/**
 * Installs the Directus peer of leadline's benchmark into this folder, apart
 * from leadline's own dependencies: Directus (pinned) and Node 22 from npm (the
 * `node` package; Directus needs Node >= 22). Native modules are then rebuilt
 * for that Node 22 with the headers the `node` package ships, because npm runs
 * install scripts with the Node that runs npm (20 here). Then it checks that
 * Directus bootstraps. `npm run bench` includes the peer rows from then on.
 *
 *   node bench/peers/directus/setup.js      (about 10 minutes; ~1 GB)
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const run = (cmd, args, env = {}) => execFileSync(cmd, args, { cwd: here, stdio: 'inherit', env: { ...process.env, ...env } });
const node22 = join(here, 'node_modules', 'node', 'bin', 'node');
const headers = join(here, 'node_modules', 'node', 'node_modules', `node-${process.platform}-${process.arch}`);

run('npm', ['install', '--no-audit', '--no-fund']);
if (!existsSync(node22)) throw new Error('the node package did not install its binary (node_modules/node/bin/node)');
// isolated-vm is compiled against V8's C++ API, so it must be built for the
// Node that runs Directus; the N-API modules (sqlite3, argon2) work as installed.
run('npm', ['rebuild', 'isolated-vm'], {
  PATH: `${join(here, 'node_modules', 'node', 'bin')}:${process.env.PATH}`,
  npm_config_nodedir: headers,
});
const dir = mkdtempSync(join(tmpdir(), 'directus-setup-'));
try {
  run(node22, [join(here, 'node_modules', 'directus', 'cli.js'), 'bootstrap'], {
    DB_CLIENT: 'sqlite3',
    DB_FILENAME: join(dir, 'check.db'),
    KEY: 'setup-check',
    SECRET: 'setup-check-secret-setup-check-secret',
    ADMIN_EMAIL: 'admin@example.com',
    ADMIN_PASSWORD: 'setup-check',
    TELEMETRY: 'false',
    LOG_LEVEL: 'warn',
  });
  process.stdout.write(`\nDirectus is ready (${execFileSync(node22, ['--version']).toString().trim()}); npm run bench now reports it.\n`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
