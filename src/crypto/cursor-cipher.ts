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
