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
 * One block is encrypted alone (ECB is then a keyed permutation): the same
 * position of the same campaign always gives the same cursor, which says no
 * more than the page did. Through a cipher kept open, 1-2 µs each way.
 *
 * The cursor before this one, base64url of `v1.` and the seq in base 36, is
 * still read, so a cursor a client kept across the upgrade goes on working; it
 * is not bound to a campaign. Its encodings are at most 19 characters, this
 * one's always 22, so the length tells them apart.
 */
import { type Cipher, createCipheriv, createDecipheriv, createHmac, type Decipher } from 'node:crypto';

const LENGTH = 22;
const V1_PREFIX = 'v1.';
/** campaigns whose tag is kept; past it the map starts again (a tag costs one HMAC) */
const TAGS_MAX = 10_000;

const derive = (key: Buffer, purpose: string) => createHmac('sha256', key).update(`leadline list cursor: ${purpose}`).digest();

export class ListCursors {
  private readonly encrypt: Cipher;
  private readonly decrypt: Decipher;
  private readonly tagKey: Buffer;
  private readonly tags = new Map<string, Buffer>();

  /** `databaseKey`: number_digest_key, decoded */
  constructor(databaseKey: Buffer) {
    const key = derive(databaseKey, 'cipher');
    this.encrypt = createCipheriv('aes-256-ecb', key, null).setAutoPadding(false);
    this.decrypt = createDecipheriv('aes-256-ecb', key, null).setAutoPadding(false);
    this.tagKey = derive(databaseKey, 'campaign');
  }

  encode(campaignId: string, seq: number): string {
    const block = Buffer.allocUnsafe(16);
    block.writeUInt32BE(Math.floor(seq / 2 ** 32), 0);
    block.writeUInt32BE(seq >>> 0, 4);
    this.tag(campaignId).copy(block, 8);
    // a full block with padding off: update answers it at once, and the cipher stays usable
    return this.encrypt.update(block).toString('base64url');
  }

  /** the seq after which the campaign's page starts, or null when the cursor is malformed or another campaign's */
  decode(campaignId: string, cursor: string): number | null {
    if (cursor.length !== LENGTH) return decodeV1(cursor);
    if (!/^[A-Za-z0-9_-]+$/.test(cursor)) return null;
    const block = this.decrypt.update(Buffer.from(cursor, 'base64url'));
    if (!block.subarray(8).equals(this.tag(campaignId))) return null;
    const seq = block.readUInt32BE(0) * 2 ** 32 + block.readUInt32BE(4);
    // the last character's spare bits: one position, one cursor
    return Number.isSafeInteger(seq) && this.encode(campaignId, seq) === cursor ? seq : null;
  }

  private tag(campaignId: string): Buffer {
    let tag = this.tags.get(campaignId);
    if (!tag) {
      if (this.tags.size >= TAGS_MAX) this.tags.clear();
      tag = createHmac('sha256', this.tagKey).update(campaignId).digest().subarray(0, 8);
      this.tags.set(campaignId, tag);
    }
    return tag;
  }
}

/** the seq of a cursor of the form before, or null */
function decodeV1(cursor: string): number | null {
  if (cursor.length > 19 || !/^[A-Za-z0-9_-]+$/.test(cursor)) return null;
  const text = Buffer.from(cursor, 'base64url').toString('latin1');
  if (!text.startsWith(V1_PREFIX)) return null;
  const digits = text.slice(V1_PREFIX.length);
  if (!/^(0|[1-9a-z][0-9a-z]{0,10})$/.test(digits)) return null;
  const seq = parseInt(digits, 36);
  if (!Number.isSafeInteger(seq) || Buffer.from(V1_PREFIX + digits).toString('base64url') !== cursor) return null;
  return seq;
}
