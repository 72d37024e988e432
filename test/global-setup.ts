/**
 * Process tests run the compiled CLI in dist/, so a stale build would test
 * old code while the in-process tests test new code. Before any test file
 * runs: when a source file is newer than the oldest file of the build
 * (`npm run build` empties dist/ first), build again, and stop the run
 * loudly if the build fails.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { startPgbouncer } from './helpers/pgbouncer.js';
import { PG_ADMIN_URL } from './helpers/services.js';

const ROOT = new URL('..', import.meta.url).pathname;

function mtimes(dir: string, ext: string): number[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? mtimes(join(dir, e.name), ext) : e.name.endsWith(ext) ? [statSync(join(dir, e.name)).mtimeMs] : [],
  );
}

export default async function setup(): Promise<(() => Promise<void>) | undefined> {
  build();
  // npm run test:pgbouncer: the PostgreSQL suites through PgBouncer. Test
  // workers start after this and inherit the environment set here.
  if (process.env.TEST_PGBOUNCER !== '1') return undefined;
  const bouncer = await startPgbouncer(PG_ADMIN_URL);
  process.env.TEST_PG_DIRECT_URL = PG_ADMIN_URL;
  process.env.TEST_PG_URL = bouncer.url;
  process.env.TEST_STORES = 'postgres';
  process.stderr.write(`the PostgreSQL suites through PgBouncer (transaction mode): ${bouncer.url}\n`);
  return () => bouncer.stop();
}

function build(): void {
  const sources = [
    ...mtimes(join(ROOT, 'src'), '.ts'),
    ...mtimes(join(ROOT, 'packages/client/src'), '.ts'),
    ...mtimes(join(ROOT, 'scripts'), '.js'),
    statSync(join(ROOT, 'tsconfig.json')).mtimeMs,
  ];
  const built = mtimes(join(ROOT, 'dist'), '.js');
  if (built.length > 0 && Math.max(...sources) <= Math.min(...built)) return;
  process.stderr.write(built.length === 0 ? 'dist/ is missing: building\n' : 'src/ is newer than dist/: building\n');
  try {
    execFileSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: 'inherit' });
  } catch {
    throw new Error('the build failed (npm run build shows why): process tests would run an old dist/, so no test runs');
  }
}
