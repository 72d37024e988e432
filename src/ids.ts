import { randomBytes } from 'node:crypto';

/**
 * Opaque ids: a short type prefix (readable in logs) and 16 random bytes in
 * base64url. `count` ids come from one randomBytes call, which matters for a
 * 1000-lead bulk create.
 */
export function newIds(prefix: string, count: number): string[] {
  const bytes = randomBytes(16 * count);
  const ids = new Array<string>(count);
  for (let i = 0; i < count; i++) {
    ids[i] = prefix + bytes.subarray(i * 16, i * 16 + 16).toString('base64url');
  }
  return ids;
}

export const newId = (prefix: string): string => newIds(prefix, 1)[0]!;
