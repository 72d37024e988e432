import { RedisRateLimiter, MemoryRateLimiter } from '../../dist/ratelimit/index.js';
const windows = [{ name: 'minute', limit: 1000000, windowMs: 60000 }, { name: 'hour', limit: 1000000, windowMs: 3600000 }];
const r = new RedisRateLimiter({ url: 'redis://127.0.0.1:6379', fallback: new MemoryRateLimiter(), keyPrefix: 'scratch:' + process.pid + ':' });
await r.ready(2000);
async function run(lim, n, conc) {
  let i = 0;
  const t = process.hrtime.bigint();
  await Promise.all(Array.from({ length: conc }, async () => { while (i++ < n) await lim.hit('key:abc', windows); }));
  const us = Number(process.hrtime.bigint() - t) / 1000;
  return (n / (us / 1e6)).toFixed(0) + ' hits/s';
}
const m = new MemoryRateLimiter();
console.log('memory', await run(m, 50000, 50));
console.log('redis warm', await run(r, 5000, 50));
console.log('redis', await run(r, 30000, 50));
console.log('redis', await run(r, 30000, 50));
console.log('memory', await run(m, 50000, 50));
await r.close();
