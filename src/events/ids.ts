/**
 * Event ids: `evt_` and 22 base64url characters, the first 16 bytes of an
 * HMAC of the event's row id and its index in the row, under a key derived
 * from the database's own random key for this use alone
 * (src/crypto/cursor-cipher.ts).
 * - Opaque: row ids are one sequence for every company of the deployment, so
 *   `evt_<row>_<index>`, as ids were before, told a company how many events
 *   the others caused between two of its own (SECURITY.md: no response
 *   carries another tenant's count).
 * - Stable: the same row and index always give the same id, on every
 *   instance on the database, on every read of the pull API and every try of
 *   a webhook (`webhook-id`, which receivers deduplicate by). This is the one
 *   place ids are made (src/events/feed.ts calls it for both).
 * Nothing reads an id back: a position is the cursor's (src/events/cursor.ts).
 * 128 bits keep two events from sharing an id in any deployment's lifetime.
 */
import { deriveKey, macOf, perStore, writeUint64 } from '../crypto/cursor-cipher.js';
import type { Store } from '../store/index.js';

const PREFIX = 'evt_';
const BYTES = 16;

export class EventIds {
  private readonly key: Buffer;

  /** `databaseKey`: number_digest_key, decoded */
  constructor(databaseKey: Buffer) {
    this.key = deriveKey(databaseKey, 'event id', 'mac');
  }

  /** the id of the `index`th item of the outbox row `rowId` */
  of(rowId: number, index: number): string {
    // fixed width, so that no two (row, index) pairs hash the same bytes
    const data = Buffer.allocUnsafe(12);
    writeUint64(data, 0, rowId);
    data.writeUInt32BE(index, 8);
    return PREFIX + macOf(this.key, data, BYTES).toString('base64url');
  }
}

const codecs = new WeakMap<Store, Promise<EventIds>>();

/** the event ids of the store's database */
export const eventIds = (store: Store): Promise<EventIds> => perStore(codecs, store, (key) => new EventIds(key));
