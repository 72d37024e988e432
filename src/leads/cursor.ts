/**
 * The list cursor: an opaque string holding a keyset position (the seq of the
 * last lead returned), never an offset, so every page costs the same and no
 * lead is skipped or repeated while others are inserted or deleted.
 *
 * A cursor is one 16-byte block, AES-256 encrypted, as 22 base64url
 * characters: the seq (8 bytes) and a tag of the campaign it was issued for
 * (8 bytes of an HMAC), under keys derived from the database's own random key
 * (number_digest_key, read by src/store/digests.ts), so every instance on one
 * database reads every other's cursors.
 * - Bound to its campaign: a cursor of another campaign fails the tag and is
 *   400 Invalid cursor, where it used to skip the campaign's leads silently.
 * - Opaque: seq is one sequence for every lead of the deployment, so a
 *   readable one told a tenant how many leads other companies created between
 *   two of its pages (SECURITY.md: no response carries another tenant's count).
 * The same position of the same campaign always gives the same cursor, which
 * says no more than the page did (src/crypto/cursor-cipher.ts has the rest).
 *
 * The cursor before this one (`v1.` and the seq in base 36, base64url) is no
 * longer read: anyone could write one for any seq, and since it was bound to
 * no campaign, a company's pages after forged positions found where its own
 * leads fell in the deployment-wide seq, and so how many leads the others
 * created between them. It is 400 Invalid cursor, as any cursor leadline did
 * not write (docs/operations.md, "Upgrading").
 */
import type { Store } from '../store/index.js';
import { perStore, ScopedCursors } from '../crypto/cursor-cipher.js';

/** the seq after which a campaign's page starts, bound to the campaign */
export class ListCursors extends ScopedCursors {
  /** `databaseKey`: number_digest_key, decoded */
  constructor(databaseKey: Buffer) {
    super(databaseKey, 'list cursor', 'campaign');
  }
}

const codecs = new WeakMap<Store, Promise<ListCursors>>();

/** the list cursors of the store's database */
export const listCursors = (store: Store): Promise<ListCursors> => perStore(codecs, store, (key) => new ListCursors(key));
