/**
 * What stands in for a phone number once the number itself is removed (a
 * deleted lead's attempts, purged attempts): HMAC-SHA256 of the company and
 * the number, keyed with the database's own random key (number_digest_key,
 * migration 0015). The per-number call caps count calls by it, so removing a
 * number does not reset its count (docs/compliance.md).
 *
 * Keyed, not a plain hash: phone numbers are few enough to hash them all, so
 * a plain sha256 of one is as good as the number to anyone. The key is the
 * database's, not derived from SECRET_KEY: SECRET_KEY is optional and may be
 * set later, and a digest made under another key no longer matches, which
 * would silently reset the caps. The company is in the message so one
 * number's digests cannot be linked across companies.
 */
import { createHmac } from 'node:crypto';

/** the digest of `phoneNumber` in `companyId`, as 64 hex digits; `key` is number_digest_key.key decoded */
export function numberDigest(key: Buffer, companyId: string, phoneNumber: string): string {
  return createHmac('sha256', key).update(`${companyId}\n${phoneNumber}`).digest('hex');
}
