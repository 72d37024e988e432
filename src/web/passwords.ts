/**
 * Password hashing (scrypt from node:crypto, so no native addon) and the
 * one-time passwords an operator hands to a new user.
 *
 * N=2^15, r=8, p=1: 32 MiB and about 0.2 s per hash on a small 2-core
 * machine (twice Percival's "interactive login" cost). OWASP's N=2^17 took
 * 0.8 s there, too slow for a sign-in page; sign-ins are rate-limited
 * instead. The parameters are stored with each hash, so they can be raised
 * later without invalidating existing passwords.
 */
import { randomBytes, randomInt, scrypt, type ScryptOptions } from 'node:crypto';
import type { ZxcvbnFactory } from '@zxcvbn-ts/core';
import { sameText, sha256Hex } from '../crypto/digest.js';

const N = 2 ** 15;
const R = 8;
const P = 1;
const KEY_LEN = 32;
export const MIN_PASSWORD = 12;
export const MAX_PASSWORD = 256;

function derive(password: string, salt: Buffer, o: { N: number; r: number; p: number }): Promise<Buffer> {
  const options: ScryptOptions = { ...o, maxmem: 256 * o.N * o.r + 1024 * 1024 };
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFC'), salt, KEY_LEN, options, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

/** `scrypt$N$r$p$salt$hash`, salt and hash in base64url */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, { N, r: R, p: P });
  return ['scrypt', N, R, P, salt.toString('base64url'), key.toString('base64url')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [kind, n, r, p, salt, hash] = stored.split('$');
  if (kind !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const key = await derive(password, Buffer.from(salt, 'base64url'), { N: Number(n), r: Number(r), p: Number(p) });
  return sameText(key, expected);
}

let dummy: Promise<string> | undefined;
/** a hash of a random password, for spending the same time on an unknown email as on a known one */
export const dummyHash = (): Promise<string> => (dummy ??= hashPassword(randomBytes(16).toString('hex')));

// no 0/o, 1/l/i: read aloud or copied from a terminal without mistakes
const ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';

/** 4 groups of 5 (about 99 bits): random enough that a fast hash is safe to store */
export function generateOneTimePassword(): string {
  const groups: string[] = [];
  for (let g = 0; g < 4; g++) {
    let group = '';
    for (let i = 0; i < 5; i++) group += ALPHABET[randomInt(ALPHABET.length)];
    groups.push(group);
  }
  return groups.join('-');
}

export const hashOneTime = (value: string): string => sha256Hex(value.trim().toLowerCase());

/** zxcvbn's scale: 3 is "safely unguessable: moderate protection from offline slow-hash scenario" */
const MIN_STRENGTH = 3;

let estimator: Promise<ZxcvbnFactory> | undefined;
/**
 * zxcvbn-ts with its common and English dictionaries. Imported and built on
 * first use: loading the dictionaries alone took ~0.3 s of every CLI command
 * and server start, and only someone choosing a password needs them. A check
 * then takes ~3-80 ms (150 ms on a cold start) on this machine, on a path that
 * is rare and rate-limited (dashboard POSTs per IP).
 */
function strength(): Promise<ZxcvbnFactory> {
  return (estimator ??= (async () => {
    const [{ ZxcvbnFactory }, common, en] = await Promise.all([
      import('@zxcvbn-ts/core'),
      import('@zxcvbn-ts/language-common'),
      import('@zxcvbn-ts/language-en'),
    ]);
    return new ZxcvbnFactory({
      dictionary: { ...common.dictionary, ...en.dictionary },
      graphs: common.adjacencyGraphs,
      translations: en.translations,
    });
  })());
}

/**
 * Why a new password is refused, in words to show the user, or null. Length
 * first (cheap and exact), then zxcvbn's score, with its own warning and
 * suggestions; `userInputs` (the user's email, the company's name) count as
 * words an attacker would try first.
 */
export async function passwordProblem(password: string, userInputs: readonly string[] = []): Promise<string | null> {
  if (password.length < MIN_PASSWORD) return `Use at least ${MIN_PASSWORD} characters.`;
  if (password.length > MAX_PASSWORD) return `Use at most ${MAX_PASSWORD} characters.`;
  const { score, feedback } = (await strength()).check(password, [...userInputs, 'leadline']);
  if (score >= MIN_STRENGTH) return null;
  const advice = [feedback.warning, ...feedback.suggestions].filter((s): s is string => Boolean(s));
  if (advice.length === 0) advice.push('Add more words that are less common.');
  return `This password is too easy to guess. ${advice.join(' ')} A few unrelated words make a strong one.`;
}
