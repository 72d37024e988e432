/**
 * API key values: `ll_` + 32 random base62 characters + an 8-hex checksum of
 * them. The checksum lets a mistyped or forged key be refused before any
 * database lookup; only sha256(key) is ever stored.
 */
import { randomInt } from 'node:crypto';
import { sameText, sha256Hex } from '../crypto/digest.js';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const FORMAT = /^ll_([A-Za-z0-9]{32})([0-9a-f]{8})$/;
/** the length of every well-formed key value */
export const KEY_LENGTH = 3 + 32 + 8;

const checksum = (body: string) => sha256Hex(body).slice(0, 8);

export function generateKeyValue(): string {
  let body = '';
  for (let i = 0; i < 32; i++) body += ALPHABET[randomInt(ALPHABET.length)];
  return `ll_${body}${checksum(body)}`;
}

/** true when the value has the key format and its checksum matches */
export function isWellFormedKey(value: string): boolean {
  const match = FORMAT.exec(value);
  return match !== null && sameText(checksum(match[1]!), match[2]!);
}

export const hashKey = (value: string): string => sha256Hex(value);
