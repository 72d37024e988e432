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

/** ms since the epoch in fixed-width base 36 (nine characters last until the year 5188) */
const timeText = (ms: number): string => ms.toString(36).padStart(9, '0');

/**
 * Ids of the rows that large tables gain all the time (leads, attempts): the
 * creation time first, then the same 16 random bytes, so that ids made later
 * sort after earlier ones (byte order; [0-9a-z] sorts the same way in any
 * common collation). A unique index on random ids takes each new entry at a
 * random leaf page, and once the index outgrows the database's cache every
 * insert reads and dirties a page of its own: 1000 inserts into a 5M-row
 * table whose random-id index (364 MB) exceeded PostgreSQL's default 128 MB
 * of shared buffers took 20.0 ms against 5.3 ms for ordered ids (medians of
 * 20 batches, docs/perf-log.md eighth session). Ordered ids land on the few
 * pages at the index's right edge. The time they reveal is the lead's
 * createdAt, which the API answers anyway.
 */
export function orderedIds(prefix: string, count: number, now = Date.now()): string[] {
  return newIds(prefix + timeText(now), count);
}
