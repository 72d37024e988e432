/**
 * Secrets at rest (predial secrets, provider credentials, webhook secrets):
 * with SECRET_KEY set they are stored sealed with AES-256-GCM; without it
 * they are stored as given, as before.
 *
 * SECRET_KEY is 32 random bytes in base64 (or base64url), e.g. the output of
 * `openssl rand -base64 32`. Exactly 32 bytes, not any passphrase: the key is
 * used as it is, not stretched, so it must be random. The AES key is derived
 * from it with HKDF-SHA256 for this one purpose, so the same SECRET_KEY can
 * key other things later without reusing a key.
 *
 * A sealed value is `enc:v1:<key id>:<base64url of iv(12) ‖ ciphertext ‖ tag(16)>`:
 * the prefix tells it from a plain legacy value (open returns those
 * unchanged, so values stored before SECRET_KEY was set keep working), the
 * version leaves room for another scheme, and the key id (8 hex digits of a
 * hash of the derived key, which reveals nothing of it) says which key sealed
 * it, so a wrong key is reported as such rather than as tampering.
 *
 * An optional context (e.g. `campaigns.predial_secret:cp_…`) is bound as
 * additional authenticated data: a sealed value copied to another row or
 * column does not open there.
 */
import { createCipheriv, createDecipheriv, createHash, createSecretKey, hkdfSync, type KeyObject, randomBytes } from 'node:crypto';

const SEALED_PREFIX = 'enc:v1:';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;
const BASE64_32_BYTES = /^(?:[A-Za-z0-9+/]{43}=?|[A-Za-z0-9_-]{43})$/;

export class SecretKeyError extends Error {}
export class SecretsError extends Error {}

/** SECRET_KEY parsed; undefined when unset. Kept as a KeyObject, which never prints its bytes. */
export function parseSecretKey(raw: string | undefined): KeyObject | undefined {
  const value = raw?.trim();
  if (value === undefined || value === '') return undefined;
  const bytes = BASE64_32_BYTES.test(value)
    ? Buffer.from(value, value.includes('-') || value.includes('_') ? 'base64url' : 'base64')
    : null;
  if (!bytes || bytes.length !== KEY_BYTES) {
    throw new SecretKeyError(
      `SECRET_KEY must be 32 random bytes in base64 (generate one with: openssl rand -base64 32), got ${value.length} characters that are not`,
    );
  }
  return createSecretKey(bytes);
}

export const isSealed = (stored: string): boolean => stored.startsWith(SEALED_PREFIX);

export interface Secrets {
  /** whether seal encrypts (SECRET_KEY is set) */
  readonly encrypting: boolean;
  /** the value to store: sealed with SECRET_KEY, or as given without one */
  seal(plain: string, context?: string): string;
  /** the stored value's plain text; a value stored plain comes back unchanged */
  open(stored: string, context?: string): string;
}

class SealingSecrets implements Secrets {
  readonly encrypting = true;
  private readonly key: Buffer;
  private readonly keyId: string;

  constructor(secretKey: KeyObject) {
    this.key = Buffer.from(hkdfSync('sha256', secretKey, 'leadline', 'secrets at rest v1', KEY_BYTES));
    this.keyId = createHash('sha256').update('leadline key id').update(this.key).digest('hex').slice(0, 8);
  }

  seal(plain: string, context = ''): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv).setAAD(Buffer.from(context, 'utf8'));
    const body = Buffer.concat([iv, cipher.update(plain, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return `${SEALED_PREFIX}${this.keyId}:${body.toString('base64url')}`;
  }

  open(stored: string, context = ''): string {
    if (!isSealed(stored)) return stored;
    const rest = stored.slice(SEALED_PREFIX.length);
    const colon = rest.indexOf(':');
    const keyId = rest.slice(0, colon);
    const body = Buffer.from(rest.slice(colon + 1), 'base64url');
    if (colon !== 8 || body.length < IV_BYTES + TAG_BYTES) throw new SecretsError('a sealed secret is malformed');
    if (keyId !== this.keyId)
      throw new SecretsError(`a secret was sealed with another SECRET_KEY (key id ${keyId}, this one is ${this.keyId})`);
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, body.subarray(0, IV_BYTES)).setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(body.subarray(body.length - TAG_BYTES));
      return Buffer.concat([decipher.update(body.subarray(IV_BYTES, body.length - TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretsError('a sealed secret failed its integrity check: it was altered, or belongs to another row');
    }
  }
}

const PLAIN: Secrets = {
  encrypting: false,
  seal: (plain) => plain,
  open(stored) {
    if (isSealed(stored)) throw new SecretsError('a secret is stored encrypted, but SECRET_KEY is not set');
    return stored;
  },
};

/** sealing with `key` (config.secretKey), or storing as given when it is undefined */
export function secretsFor(key: KeyObject | undefined): Secrets {
  return key ? new SealingSecrets(key) : PLAIN;
}
