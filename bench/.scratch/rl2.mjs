import { Redis } from 'ioredis';
import { HIT_SCRIPT } from '../../dist/ratelimit/redis-script.js';
const auto = process.argv[2] === 'auto';
const nkeys = Number(process.argv[3] ?? 1);
const c = new Redis('redis://127.0.0.1:6379', { enableAutoPipelining: auto });
c.defineCommand('hit', { lua: HIT_SCRIPT });
const p = 'scratch2:' + process.pid + ':';
let seq = 0;
async function run(n, conc) {
  let i = 0;
  const t = process.hrtime.bigint();
  await Promise.all(Array.from({ length: conc }, async () => { while (i++ < n) { const k = p + '{k' + (i % nkeys) + '}'; await c.hit(2, k + ':m', k + ':h', '', 'm' + ++seq, '1000000', '60000', '1000000', '3600000'); } }));
  return (n / (Number(process.hrtime.bigint() - t) / 1e9)).toFixed(0) + ' hits/s';
}
await run(3000, 50);
console.log(auto ? 'auto' : 'plain', nkeys, await run(30000, 50), await run(30000, 50));
const keys = await c.keys(p + '*'); if (keys.length) await c.del(...keys);
await c.quit();
