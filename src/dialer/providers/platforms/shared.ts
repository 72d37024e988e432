/** What the four adapters do alike: option checks, per-call variables, reading answers, comparing secrets. */
import { timingSafeEqual } from 'node:crypto';
import { validation } from '../../../errors.js';
import { type CallRequest, concludes, type HttpAnswer, type Outcome, type PlaceResult } from './types.js';

/** E.164 as the ITU defines it: +, a country code not starting with 0, at most 15 digits */
const E164 = /^\+[1-9]\d{1,14}$/;
const MAX_TEXT = 200;

export type OptionCheck = (value: string) => string | null;

/** Unknown, empty or invalid keys are errors at create time, each naming the key. */
export function checkOptions(
  platform: string,
  options: Record<string, string>,
  allowed: Record<string, OptionCheck>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(options)) {
    const check = allowed[key];
    if (!check) {
      throw validation(`${platform}: unknown --provider-option "${key}" (${platform} takes ${Object.keys(allowed).join(', ')})`);
    }
    const v = String(value).trim();
    if (v === '') throw validation(`${platform}: --provider-option ${key} is empty`);
    const problem = check(v);
    if (problem) throw validation(`${platform}: --provider-option ${key} ${problem}`);
    out[key] = v;
  }
  return out;
}

export function requireOptions(platform: string, options: Record<string, string>, keys: string[]): void {
  for (const key of keys) {
    if (!options[key]) throw validation(`${platform}: missing --provider-option ${key}=...`);
  }
}

export const anyText: OptionCheck = () => null;
export const e164: OptionCheck = (v) => (E164.test(v) ? null : `must be an E.164 phone number such as +14155550123, not "${v}"`);

/**
 * The per-call variables: the lead's metadata keys, then leadId, attemptId and externalId, which
 * win over metadata keys of the same name because reconciliation matches on them.
 */
export function callVariables(call: CallRequest): Record<string, unknown> {
  const meta = call.metadata && typeof call.metadata === 'object' && !Array.isArray(call.metadata) ? call.metadata : {};
  return { ...meta, leadId: call.leadId, attemptId: call.attemptId, externalId: call.externalId };
}

/** For places that take only strings (Retell dynamic variables, a URL's query string). */
export function asStrings(vars: Record<string, unknown>): Record<string, string> {
  // fromEntries defines own properties, so a metadata key named __proto__ stays a key.
  return Object.fromEntries(Object.entries(vars).map(([k, v]) => [k, text(v)]));
}

function text(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  return JSON.stringify(v);
}

/** A table's own entry only: 'constructor' or 'toString' from a platform must not reach Object.prototype. */
export function mapped<T>(table: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export function obj(v: unknown): Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

export function str(v: unknown): string | null {
  return typeof v === 'string' && v !== '' ? v : null;
}

export function isTrue(v: unknown): boolean {
  return v === true || (typeof v === 'string' && v.trim().toLowerCase() === 'true');
}

/** Retry-After as seconds or as an HTTP date (RFC 9110 §10.2.3) */
export function retryAfterMs(headers: Record<string, string | undefined>, now = Date.now()): number | undefined {
  const v = headers['retry-after']?.trim();
  if (!v) return undefined;
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** The platform's own words about a refusal, short enough for an attempt row. */
export function detail(text: string): string {
  const b = obj(parseJson(text));
  const m = b.message ?? b.error_message ?? b.error ?? b.errors;
  const s = typeof m === 'string' ? m : m === undefined ? text : JSON.stringify(m);
  return s.replace(/\s+/g, ' ').trim().slice(0, MAX_TEXT);
}

/**
 * The answer to a create-call, classified where the four platforms agree. `null` means a 2xx the
 * adapter reads itself. The rules (the dialer's: never re-send, and spend no attempt on a call
 * that was clearly not placed):
 *   - nothing sent (refused connection, DNS) and 3xx (no redirect is followed): not placed;
 *   - 429, 401/403 (credentials), 402 (billing), 404 (an id or the base URL is wrong): the
 *     platform refused before placing; not placed, the lead is not at fault;
 *   - other 4xx (400, 422): the request itself was refused, often the lead's number; a failed
 *     attempt, so a bad number exhausts instead of looping;
 *   - 5xx, timeouts after sending, resets: unknown; none of the platforms documents that a 5xx
 *     placed nothing, so the attempt stays open and is reconciled.
 */
export function classifyCreate(platform: string, a: HttpAnswer): PlaceResult | null {
  if (!a.ok) {
    return a.sent ? { kind: 'unknown', reason: `${platform}: ${a.reason}` } : { kind: 'not-placed', reason: `${platform}: ${a.reason}` };
  }
  const s = a.status;
  if (s >= 200 && s < 300) return null;
  const why = `${platform}: HTTP ${s}${a.text.trim() ? ` ${detail(a.text)}` : ''}`;
  if (s === 429) {
    const retry = retryAfterMs(a.headers);
    return { kind: 'not-placed', reason: why, ...(retry !== undefined ? { retryAfterMs: retry } : {}) };
  }
  if ((s >= 300 && s < 400) || s === 401 || s === 402 || s === 403 || s === 404) return { kind: 'not-placed', reason: why };
  if (s >= 400 && s < 500) return { kind: 'finished', success: false, outcome: 'failed', reason: why };
  return { kind: 'unknown', reason: why };
}

/** An answer the adapter could not make sense of, though the platform answered 2xx: the call may exist. */
export function unreadable(platform: string, what: string): PlaceResult {
  return { kind: 'unknown', reason: `${platform}: ${what}` };
}

/** A lookup or hang-up that could not reach a verdict throws; the dialer asks again later. */
export function lookupError(platform: string, a: HttpAnswer): Error {
  return new Error(a.ok ? `${platform}: HTTP ${a.status} ${detail(a.text)}` : `${platform}: ${a.reason}`);
}

export function ended(outcome: Outcome, reason?: string, durationSeconds?: number) {
  return {
    outcome,
    success: concludes(outcome),
    ...(reason ? { reason: reason.slice(0, MAX_TEXT) } : {}),
    ...(durationSeconds !== undefined && Number.isFinite(durationSeconds) && durationSeconds >= 0
      ? { durationSeconds: Math.round(durationSeconds) }
      : {}),
  };
}

export function secondsBetween(start: unknown, end: unknown): number | undefined {
  if (typeof start !== 'string' || typeof end !== 'string') return undefined;
  const ms = Date.parse(end) - Date.parse(start);
  return Number.isFinite(ms) && ms >= 0 ? ms / 1000 : undefined;
}

export function num(v: unknown): number | undefined {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  return Number.isFinite(n) ? n : undefined;
}

/** Constant-time comparison; different lengths are simply unequal. */
export function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export function attemptIdFromUrl(url: string): string | null {
  try {
    return new URL(url).searchParams.get('attemptId');
  } catch {
    return null;
  }
}

export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}${path}`;
}

/**
 * An id from a platform's answer as one path segment of a request to that platform. Percent-encoding
 * leaves dots alone, and URL parsing takes `..` (or `%2e%2e`) as "up one": a call id of `..` sent
 * Bland's stop to /v1/stop with the account's key. Such an id is refused (the lookup or hang-up
 * throws, and the dialer asks again later, as for any answer it cannot use).
 */
export function pathSegment(id: string): string {
  if (/^(\.|%2e){1,2}$/i.test(id)) throw new Error(`the platform's id "${id}" is not a path segment`);
  return encodeURIComponent(id);
}
