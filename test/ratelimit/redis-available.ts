import { spawnSync } from 'node:child_process';
import { Redis } from 'ioredis';
import { REDIS_URL, runOrSkip } from '../helpers/services.js';

export { REDIS_URL };

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

export async function shouldRunRedisSuite(url = REDIS_URL): Promise<boolean> {
  return runOrSkip(await pings(url), `no Redis answering at ${url}: skipping the Redis limiter suite`);
}

export function shouldRunRedisServerSuite(): boolean {
  const found = spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;
  return runOrSkip(found, 'redis-server is not on PATH: skipping the Redis outage suite');
}
