/**
 * The events cursor: an opaque string holding a Position (a row's tx and id,
 * and how many of its items were read), never an offset.
 *
 * Two AES-256 blocks, 43 base64url characters: tx and id (8 bytes each), then
 * n (4 bytes) with 12 bytes of an HMAC of the whole position, under keys
 * derived from the database's own random key, as the lead list's cursors are
 * (src/leads/cursor.ts). Opaque because the event ids and transaction ids are
 * shared by every company of the deployment: readable, two cursors told a
 * company how many events the others caused between them (SECURITY.md). The
 * HMAC makes a cursor that leadline did not write (or a block of one put with
 * a block of another) a malformed one (src/crypto/cursor-cipher.ts).
 *
 * The cursor before this one (`e1.` and the three numbers in base 36,
 * base64url) is no longer read: anyone could write one for any position, so
 * it undid the opacity above (a company's pages after forged positions
 * counted the others' events), and it let n past 32 bits through. It is
 * 400 Invalid cursor, as any cursor leadline did not write
 * (docs/operations.md, "Upgrading").
 */
import { CursorCipher, perStore, readUint64, writeUint64 } from '../crypto/cursor-cipher.js';
import type { Store } from '../store/index.js';
import type { Position } from '../store/events.js';

const LENGTH = 43;

export class EventCursors {
  private readonly cipher: CursorCipher;

  /** `databaseKey`: number_digest_key, decoded */
  constructor(databaseKey: Buffer) {
    this.cipher = new CursorCipher(databaseKey, 'events cursor', 'tag');
  }

  encode(p: Position): string {
    const block = Buffer.allocUnsafe(32);
    writeUint64(block, 0, p.tx);
    writeUint64(block, 8, p.id);
    block.writeUInt32BE(p.n, 16);
    this.tag(block).copy(block, 20);
    return this.cipher.encrypt(block);
  }

  /** the position, or null when the cursor is malformed */
  decode(cursor: string): Position | null {
    if (cursor.length !== LENGTH || !/^[A-Za-z0-9_-]+$/.test(cursor)) return null;
    const block = this.cipher.decrypt(cursor);
    if (!block.subarray(20).equals(this.tag(block))) return null;
    const p = { tx: readUint64(block, 0), id: readUint64(block, 8), n: block.readUInt32BE(16) };
    if (!Number.isSafeInteger(p.tx) || !Number.isSafeInteger(p.id)) return null;
    // the last character's spare bits: one position, one cursor
    return this.encode(p) === cursor ? p : null;
  }

  /** 12 bytes of the HMAC of the position's first 20 bytes */
  private tag(block: Buffer): Buffer {
    return this.cipher.mac(block.subarray(0, 20), 12);
  }
}

const codecs = new WeakMap<Store, Promise<EventCursors>>();

/** the events cursors of the store's database */
export const eventCursors = (store: Store): Promise<EventCursors> => perStore(codecs, store, (key) => new EventCursors(key));
