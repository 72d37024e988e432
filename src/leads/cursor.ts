/**
 * The list cursor: an opaque string holding a keyset position (the seq of the
 * last lead returned), never an offset, so every page costs the same and no
 * lead is skipped or repeated while others are inserted or deleted.
 */
const PREFIX = 'v1.';

export function encodeCursor(seq: number): string {
  return Buffer.from(PREFIX + seq.toString(36)).toString('base64url');
}

/** the seq after which the page starts, or null when the cursor is malformed */
export function decodeCursor(cursor: string): number | null {
  if (cursor.length > 32 || !/^[A-Za-z0-9_-]+$/.test(cursor)) return null;
  const text = Buffer.from(cursor, 'base64url').toString('latin1');
  if (!text.startsWith(PREFIX)) return null;
  const digits = text.slice(PREFIX.length);
  if (!/^(0|[1-9a-z][0-9a-z]{0,10})$/.test(digits)) return null;
  const seq = parseInt(digits, 36);
  if (!Number.isSafeInteger(seq) || encodeCursor(seq) !== cursor) return null;
  return seq;
}
