/** Secrets at rest: AES-256-GCM under SECRET_KEY, told apart from legacy plain values by their prefix. */
import { randomBytes } from 'node:crypto';
import { inspect } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { isSealed, parseSecretKey, SecretsError, secretsFor } from '../../src/crypto/secrets.js';

const newKey = () => randomBytes(32).toString('base64');
const secrets = (raw = newKey()) => secretsFor(parseSecretKey(raw));

describe('with SECRET_KEY', () => {
  it('seal and open round-trip any text; the stored form is versioned and reveals nothing of it', () => {
    const s = secrets();
    expect(s.encrypting).toBe(true);
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.string(), (plain, context) => {
        const stored = s.seal(plain, context);
        expect(stored).toMatch(/^enc:v1:[0-9a-f]{8}:[A-Za-z0-9_-]+$/);
        expect(isSealed(stored)).toBe(true);
        expect(s.open(stored, context)).toBe(plain);
      }),
    );
    const stored = s.seal('whsec_very-secret-value');
    expect(stored).not.toContain('very-secret');
    expect(s.seal('same')).not.toBe(s.seal('same')); // a fresh IV each time
  });

  it('a value stored before SECRET_KEY was set opens as itself', () => {
    expect(secrets().open('predial-secret-1')).toBe('predial-secret-1');
    expect(secrets().open('')).toBe('');
  });

  it('tampering with any part of a sealed value is detected', () => {
    const s = secrets();
    const stored = s.seal('predial-secret-1');
    const head = stored.slice(0, stored.lastIndexOf(':') + 1);
    const body = Buffer.from(stored.slice(head.length), 'base64url');
    for (let i = 0; i < body.length; i++) {
      const altered = Buffer.from(body);
      altered[i]! ^= 0x01;
      expect(() => s.open(head + altered.toString('base64url')), `byte ${i}`).toThrow(SecretsError);
    }
    expect(() => s.open(head + body.subarray(0, 20).toString('base64url'))).toThrow('a sealed secret is malformed');
    expect(() => s.open(head + body.subarray(0, body.length - 1).toString('base64url'))).toThrow(SecretsError);
  });

  it('another key, or another context, does not open it', () => {
    const stored = secrets(newKey()).seal('predial-secret-1', 'campaigns.predial_secret:cp_1');
    expect(() => secrets(newKey()).open(stored, 'campaigns.predial_secret:cp_1')).toThrow(/sealed with another SECRET_KEY/);
    const raw = newKey();
    const s = secrets(raw);
    const bound = s.seal('predial-secret-1', 'campaigns.predial_secret:cp_1');
    expect(() => s.open(bound, 'campaigns.predial_secret:cp_2')).toThrow(/failed its integrity check/);
    // the same key given again (another process, a restart) opens it
    expect(secrets(raw).open(bound, 'campaigns.predial_secret:cp_1')).toBe('predial-secret-1');
  });
});

describe('without SECRET_KEY', () => {
  it('values are stored as given; a sealed one cannot be opened, and says why', () => {
    const plain = secretsFor(undefined);
    expect(plain.encrypting).toBe(false);
    expect(plain.seal('predial-secret-1')).toBe('predial-secret-1');
    expect(plain.open('predial-secret-1')).toBe('predial-secret-1');
    expect(() => plain.open(secrets().seal('x'))).toThrow('a secret is stored encrypted, but SECRET_KEY is not set');
  });
});

describe('SECRET_KEY in config', () => {
  it('is optional, and accepted as 32 bytes in base64 or base64url', () => {
    expect(loadConfig({}).secretKey).toBeUndefined();
    const bytes = randomBytes(32);
    for (const raw of [
      bytes.toString('base64'),
      bytes.toString('base64').replace(/=$/, ''),
      bytes.toString('base64url'),
      ` ${bytes.toString('base64')}\n`,
    ]) {
      const key = loadConfig({ SECRET_KEY: raw }).secretKey!;
      expect(key.export()).toEqual(bytes);
    }
  });

  it.each([
    ['too-short'],
    [randomBytes(16).toString('base64')],
    [randomBytes(48).toString('base64')],
    ['x'.repeat(44)],
    ['not base64 at all, but long enough to pass?'],
  ])('SECRET_KEY=%s is a ConfigError that does not echo it', (raw) => {
    expect(() => loadConfig({ SECRET_KEY: raw })).toThrow(ConfigError);
    expect(() => loadConfig({ SECRET_KEY: raw })).toThrow(
      /^SECRET_KEY must be 32 random bytes in base64 \(generate one with: openssl rand -base64 32\)/,
    );
    try {
      loadConfig({ SECRET_KEY: raw });
    } catch (err) {
      expect((err as Error).message).not.toContain(raw);
    }
  });

  it('never prints the key', () => {
    const raw = newKey();
    const config = loadConfig({ SECRET_KEY: raw });
    expect(inspect(config, { depth: 5 })).not.toContain(raw);
    expect(JSON.stringify(config)).not.toContain(raw);
  });
});
