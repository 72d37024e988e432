/**
 * What the lead list's and the events' cursors and the event ids share
 * (src/leads/cursor.ts, src/events/cursor.ts, src/events/ids.ts): keys derived
 * from the database's own random key (Store.databaseKey), so that every
 * instance on one database reads every other's cursors and gives an event the
 * same id; whole 16-byte blocks through AES-256 ciphers kept open (ECB on a
 * block is a keyed permutation; update answers a whole block at once and
 * leaves the cipher usable: 1-2 µs, against 6 µs for a new cipher a cursor);
 * and an HMAC under a key of its own.
 */
import { type Cipher, createCipheriv, createDecipheriv, createHmac, type Decipher } from 'node:crypto';
import type { Store } from '../store/index.js';

/**
 * A key of its own for each use (`name`: whose, "list cursor"; `purpose`: what
 * for), so that no value made for one use passes for another's. The strings
 * are part of every cursor and event id already given out: changing one
 * invalidates them.
 */
export const deriveKey = (databaseKey: Buffer, name: string, purpose: string): Buffer =>
  createHmac('sha256', databaseKey).update(`leadline ${name}: ${purpose}`).digest();

/** the first `bytes` bytes of the HMAC-SHA256 of `data` under `key` */
export const macOf = (key: Buffer, data: Buffer | string, bytes: number): Buffer =>
  createHmac('sha256', key).update(data).digest().subarray(0, bytes);

export class CursorCipher {
  private readonly encryptor: Cipher;
  private readonly decryptor: Decipher;
  private readonly macKey: Buffer;

  /** `name`: whose cursors ("list cursor"); `macPurpose`: what the HMAC key is derived for */
  constructor(databaseKey: Buffer, name: string, macPurpose: string) {
    const key = deriveKey(databaseKey, name, 'cipher');
    this.encryptor = createCipheriv('aes-256-ecb', key, null).setAutoPadding(false);
    this.decryptor = createDecipheriv('aes-256-ecb', key, null).setAutoPadding(false);
    this.macKey = deriveKey(databaseKey, name, macPurpose);
  }

  /** whole blocks, as base64url */
  encrypt(blocks: Buffer): string {
    return this.encryptor.update(blocks).toString('base64url');
  }

  /** the blocks of base64url text that encrypt wrote (its length already checked) */
  decrypt(text: string): Buffer {
    return this.decryptor.update(Buffer.from(text, 'base64url'));
  }

  /** the first `bytes` bytes of the HMAC of `data` */
  mac(data: Buffer | string, bytes: number): Buffer {
    return macOf(this.macKey, data, bytes);
  }
}

/**
 * A 64-bit position bound to one scope (a campaign, a company): one 16-byte
 * block, the position (8 bytes) and a tag of the scope (8 bytes of an HMAC),
 * encrypted, as 22 base64url characters. A cursor of another scope fails the
 * tag; one leadline did not write fails it too, but for one chance in 2^64.
 * The same position of the same scope always gives the same cursor.
 */
export class ScopedCursors {
  static readonly LENGTH = 22;
  /** scopes whose tag is kept; past it the map starts again (a tag costs one HMAC) */
  private static readonly TAGS_MAX = 10_000;
  private readonly cipher: CursorCipher;
  private readonly tags = new Map<string, Buffer>();

  /** `name`: whose cursors ("list cursor"); `scope`: what they are bound to ("campaign") */
  constructor(databaseKey: Buffer, name: string, scope: string) {
    this.cipher = new CursorCipher(databaseKey, name, scope);
  }

  encode(scopeId: string, position: number): string {
    const block = Buffer.allocUnsafe(16);
    writeUint64(block, 0, position);
    this.tag(scopeId).copy(block, 8);
    return this.cipher.encrypt(block);
  }

  /** the position, or null when the cursor is malformed or another scope's */
  decode(scopeId: string, cursor: string): number | null {
    if (cursor.length !== ScopedCursors.LENGTH || !/^[A-Za-z0-9_-]+$/.test(cursor)) return null;
    const block = this.cipher.decrypt(cursor);
    if (!block.subarray(8).equals(this.tag(scopeId))) return null;
    const position = readUint64(block, 0);
    // the last character's spare bits: one position, one cursor
    return Number.isSafeInteger(position) && this.encode(scopeId, position) === cursor ? position : null;
  }

  private tag(scopeId: string): Buffer {
    let tag = this.tags.get(scopeId);
    if (!tag) {
      if (this.tags.size >= ScopedCursors.TAGS_MAX) this.tags.clear();
      tag = this.cipher.mac(scopeId, 8);
      this.tags.set(scopeId, tag);
    }
    return tag;
  }
}

export function writeUint64(b: Buffer, at: number, v: number): void {
  b.writeUInt32BE(Math.floor(v / 2 ** 32), at);
  b.writeUInt32BE(v >>> 0, at + 4);
}

export const readUint64 = (b: Buffer, at: number) => b.readUInt32BE(at) * 2 ** 32 + b.readUInt32BE(at + 4);

/**
 * One codec per store, made from its database key once it is read (a failed
 * read is tried again next time).
 */
export function perStore<T>(codecs: WeakMap<Store, Promise<T>>, store: Store, make: (databaseKey: Buffer) => T): Promise<T> {
  let codec = codecs.get(store);
  if (!codec) {
    codec = store.databaseKey().then(make, (err) => {
      codecs.delete(store);
      throw err;
    });
    codecs.set(store, codec);
  }
  return codec;
}
