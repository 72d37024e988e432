import { spawnSync } from 'node:child_process';
import { Redis } from 'ioredis';

export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

async function pings(url: string): Promise<boolean> {
  const client = new Redis(url, { lazyConnect: true, connectTimeout: 1000, maxRetriesPerRequest: 0, retryStrategy: () => null });
  client.on('error', () => {});
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

/**
 * Whether a suite that needs `what` should run. Locally a missing dependency
 * skips the suite with a warning; under CI=true the suite runs anyway so that
 * it fails loudly instead of silently passing.
 */
function gate(ok: boolean, what: string): boolean {
  if (ok) return true;
  if (process.env.CI === 'true') return true;
  console.warn(`[ratelimit tests] skipping: ${what} (set CI=true to make this a failure)`);
  return false;
}

export async function shouldRunRedisSuite(url = REDIS_URL): Promise<boolean> {
  return gate(await pings(url), `no Redis answering at ${url}`);
}

export function shouldRunRedisServerSuite(): boolean {
  const found = spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;
  return gate(found, 'redis-server is not on PATH');
}
