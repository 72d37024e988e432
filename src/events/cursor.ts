/**
 * The events cursor: an opaque string holding a Position (a row's tx and id,
 * and how many of its items were read), never an offset, in the style of the
 * lead list's cursor (src/leads/cursor.ts).
 */
import type { Position } from '../store/events.js';

const PREFIX = 'e1.';
const NUMBER = /^(0|[1-9a-z][0-9a-z]{0,10})$/;

export function encodeEventCursor(p: Position): string {
  return Buffer.from(`${PREFIX}${p.tx.toString(36)}.${p.id.toString(36)}.${p.n.toString(36)}`).toString('base64url');
}

/** the position, or null when the cursor is malformed */
export function decodeEventCursor(cursor: string): Position | null {
  if (cursor.length > 64 || !/^[A-Za-z0-9_-]+$/.test(cursor)) return null;
  const text = Buffer.from(cursor, 'base64url').toString('latin1');
  if (!text.startsWith(PREFIX)) return null;
  const parts = text.slice(PREFIX.length).split('.');
  if (parts.length !== 3 || !parts.every((d) => NUMBER.test(d))) return null;
  const [tx, id, n] = parts.map((d) => parseInt(d, 36)) as [number, number, number];
  if (![tx, id, n].every(Number.isSafeInteger)) return null;
  const p = { tx, id, n };
  return encodeEventCursor(p) === cursor ? p : null;
}
