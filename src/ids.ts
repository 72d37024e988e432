import { randomBytes } from 'node:crypto';

/**
 * Opaque ids: a short type prefix (readable in logs) and 16 random bytes in
 * base64url. `count` ids come from one randomBytes call, which matters for a
 * 1000-lead bulk create.
 *
 * Small requests take their bytes from a pool filled by one randomBytes call
 * per POOL_BYTES (as Node does for randomUUID): a randomBytes call per single
 * create cost ~3% of the server's CPU for single creates at 50 connections (OpenSSL's DRBG
 * behind it, measured with perf), for 16 bytes. Same generator, same bytes
 * per id; each byte is handed out once.
 */
const POOL_BYTES = 16 * 256;
let pool = Buffer.alloc(0);
let used = 0;

function random(n: number): Buffer {
  if (n > POOL_BYTES / 4) return randomBytes(n);
  if (used + n > pool.length) {
    pool = randomBytes(POOL_BYTES);
    used = 0;
  }
  const bytes = pool.subarray(used, used + n);
  used += n;
  return bytes;
}

export function newIds(prefix: string, count: number): string[] {
  const bytes = random(16 * count);
  const ids = new Array<string>(count);
  for (let i = 0; i < count; i++) {
    ids[i] = prefix + bytes.subarray(i * 16, i * 16 + 16).toString('base64url');
  }
  return ids;
}

export const newId = (prefix: string): string => newIds(prefix, 1)[0]!;
