/**
 * Debian's `pgbouncer` in transaction mode on a free port, in front of the
 * test server, as real PostgreSQL deployments run leadline (docs/operations.md,
 * "Behind PgBouncer"). Used by test/db/pooler.test.ts and, for the whole
 * PostgreSQL suite, by the global setup under TEST_PGBOUNCER=1
 * (`npm run test:pgbouncer`).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const PGBOUNCER = ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer'].find((p) => existsSync(p)) ?? null;

export interface Pgbouncer {
  /** `adminUrl` with the pooler's port and `?pgbouncer=true` */
  readonly url: string;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

const accepting = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = net.connect(port, '127.0.0.1', () => {
      s.destroy();
      resolve(true);
    });
    s.on('error', () => resolve(false));
  });

export async function startPgbouncer(adminUrl: string): Promise<Pgbouncer> {
  if (!PGBOUNCER) throw new Error('pgbouncer is not installed (Debian: apt-get install pgbouncer)');
  const admin = new URL(adminUrl);
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'leadline-pgbouncer-'));
  // pgbouncer refuses to run as root; under root it runs as the postgres user, who must write here
  chmodSync(dir, 0o777);
  const ini = join(dir, 'pgbouncer.ini');
  writeFileSync(
    ini,
    [
      '[databases]',
      // every database of the test server, as one user: auth_type = any needs no password file
      `* = host=${admin.hostname} port=${admin.port || 5432} user=${admin.username || 'postgres'}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = any',
      'pool_mode = transaction',
      'max_client_conn = 2000',
      'default_pool_size = 20',
      `logfile = ${join(dir, 'pgbouncer.log')}`,
    ].join('\n'),
  );
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }));
  const user = process.getuid?.() === 0 ? { uid: id('-u'), gid: id('-g') } : {};
  const child: ChildProcess = spawn(PGBOUNCER, [ini], { stdio: 'ignore', ...user });
  const exited = new Promise((r) => child.once('exit', r));
  for (let i = 0; !(await accepting(port)); i++) {
    if (i > 200 || child.exitCode !== null) {
      child.kill('SIGKILL');
      throw new Error(`pgbouncer did not start (config and log in ${dir})`);
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  const url = new URL(admin);
  url.port = String(port);
  url.searchParams.set('pgbouncer', 'true');
  return {
    url: url.toString(),
    async stop() {
      child.kill('SIGINT');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
