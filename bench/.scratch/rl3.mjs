import { RedisRateLimiter, MemoryRateLimiter } from '../../dist/ratelimit/index.js';
import { execSync } from 'node:child_process';
const windows = [{ name: 'minute', limit: 1000000, windowMs: 60000 }, { name: 'hour', limit: 1000000, windowMs: 3600000 }];
const prefix = 'scratch3:' + process.pid + ':';
const r = new RedisRateLimiter({ url: 'redis://127.0.0.1:6379', fallback: new MemoryRateLimiter(), keyPrefix: prefix });
await r.ready(2000);
const redisCpu = () => { const s = execSync('redis-cli info cpu').toString(); return Number(/used_cpu_user:([\d.]+)/.exec(s)[1]) + Number(/used_cpu_sys:([\d.]+)/.exec(s)[1]); };
async function run(n, conc) {
  let i = 0;
  const c0 = process.cpuUsage(); const r0 = redisCpu(); const t = process.hrtime.bigint();
  await Promise.all(Array.from({ length: conc }, async () => { while (i++ < n) await r.hit('key:' + (i % 100), windows); }));
  const s = Number(process.hrtime.bigint() - t) / 1e9; const c = process.cpuUsage(c0); const rc = redisCpu() - r0;
  return `${(n / s).toFixed(0)} hits/s, node ${((c.user + c.system) / n).toFixed(1)} µs/hit, redis ${(rc * 1e6 / n).toFixed(1)} µs/hit`;
}
await run(3000, 50);
for (let k = 0; k < 3; k++) console.log(await run(20000, 50));
await r.close();
execSync(`redis-cli --scan --pattern '${prefix}*' | xargs -r redis-cli del`);
