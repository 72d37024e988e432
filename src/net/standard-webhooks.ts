/**
 * Signing by the Standard Webhooks specification (standardwebhooks.com,
 * "Signature scheme" and "Webhook headers"), so that a receiver can reject
 * replays by timestamp and duplicates by id:
 *
 *   webhook-id: msg_…             unique per message (the same on every retry of it)
 *   webhook-timestamp: 1674087231  integer Unix seconds of this attempt
 *   webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">
 *
 * The key: a `whsec_<base64>` secret is its decoded bytes, as the spec
 * serialises symmetric secrets; any other string (a campaign's free-text
 * predial secret) is its raw UTF-8 bytes, which the `standardwebhooks`
 * packages verify with `new Webhook(bytes, { format: 'raw' })` in Node and
 * `Webhook(secret.encode())` in Python.
 *
 * node:crypto rather than the `standardwebhooks` package at run time: signing
 * is one HMAC, and the package is used by the tests to verify what we send.
 */
import { createHmac, randomBytes } from 'node:crypto';

const SECRET_PREFIX = 'whsec_';
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** a new `whsec_` secret: 32 random bytes (the spec asks for 24 to 64) */
export function generateSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

/** a message id: `msg_` + 16 random bytes in base64url (no `.`, which the signed content uses as its delimiter) */
function newMessageId(): string {
  return `msg_${randomBytes(16).toString('base64url')}`;
}

/** the HMAC key of a secret: a well-formed `whsec_` secret decoded, anything else as its UTF-8 bytes */
export function signingKey(secret: string): Buffer {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : null;
  if (encoded !== null && encoded !== '' && BASE64.test(encoded)) return Buffer.from(encoded, 'base64');
  return Buffer.from(secret, 'utf8');
}

/** `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` */
function signature(key: Buffer, id: string, timestampS: number, body: string): string {
  return `v1,${createHmac('sha256', key).update(`${id}.${timestampS}.${body}`).digest('base64')}`;
}

export interface SignOptions {
  /** the message's id; a new one when absent */
  id?: string;
  /** epoch ms; default Date.now() */
  now?: number;
}

/** the three headers for one attempt at sending `body` */
export function standardWebhookHeaders(
  secret: string,
  body: string,
  o: SignOptions = {},
): Record<'webhook-id' | 'webhook-timestamp' | 'webhook-signature', string> {
  const id = o.id ?? newMessageId();
  const timestampS = Math.floor((o.now ?? Date.now()) / 1000);
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestampS),
    'webhook-signature': signature(signingKey(secret), id, timestampS, body),
  };
}
