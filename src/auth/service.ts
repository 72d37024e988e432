/**
 * Key authentication and the operator's key management.
 *
 * Authenticated keys are cached for `cacheMs` (default 500 ms) so that a busy
 * key costs no database round trip per request, while a key revoked by any
 * process still fails within one second.
 */
import { sameText } from '../crypto/digest.js';
import { AppError } from '../errors.js';
import { newId } from '../ids.js';
import type { Store } from '../store/index.js';
import type { TxStore } from '../store/types.js';
import type { KeyStore } from '../store/keys.js';
import { generateKeyValue, hashKey, isWellFormedKey, KEY_LENGTH } from './keys.js';
import type { Principal, Scope } from './principal.js';

interface CacheEntry {
  principal: Principal | null;
  expiresAt: number;
}

/** last_used_at is written at most this often per key, to keep reads free of writes */
const LAST_USED_EVERY_MS = 60_000;
const CACHE_MAX = 10_000;

export class KeyAuthenticator {
  private readonly cache = new Map<string, CacheEntry>();
  private readonly lastUsedWritten = new Map<string, number>();

  constructor(
    private readonly keys: KeyStore,
    private readonly cacheMs: number,
    private readonly now: () => number = Date.now,
    private readonly onError: (err: unknown) => void = () => {},
  ) {}

  /**
   * The answer for a key value while it is cached, without a promise (the
   * request guard's hot path); undefined when it is not cached. Only
   * well-formed values are ever cached, and the hash stands for the value, so a
   * hit skips the format check and its checksum hash: one sha256 per request
   * instead of two. Anything not the length of a key is left to authenticate(),
   * which refuses it before hashing anything.
   */
  cached(value: string): Principal | null | undefined {
    if (value.length !== KEY_LENGTH) return undefined;
    const hit = this.cache.get(hashKey(value));
    return hit && hit.expiresAt > this.now() ? this.touch(hit.principal) : undefined;
  }

  /** the principal for a key value, or null when unknown, revoked or malformed */
  async authenticate(value: string): Promise<Principal | null> {
    const cached = this.cached(value);
    if (cached !== undefined) return cached;
    if (!isWellFormedKey(value)) return null;
    const hash = hashKey(value);
    const now = this.now();
    const row = await this.keys.byHash(hash);
    const principal =
      row && row.revoked_at === null && sameText(row.key_hash, hash)
        ? { keyId: row.id, companyId: row.company_id, campaignId: row.campaign_id, scope: row.scope }
        : null;
    if (this.cache.size >= CACHE_MAX) this.cache.clear();
    this.cache.set(hash, { principal, expiresAt: now + this.cacheMs });
    return this.touch(principal);
  }

  private touch(principal: Principal | null): Principal | null {
    if (!principal) return null;
    const now = this.now();
    const last = this.lastUsedWritten.get(principal.keyId) ?? 0;
    if (now - last >= LAST_USED_EVERY_MS) {
      this.lastUsedWritten.set(principal.keyId, now);
      this.keys.touch(principal.keyId, now).catch(this.onError);
    }
    return principal;
  }
}

export interface KeySummary {
  keyId: string;
  name: string;
  scope: Scope;
  campaignId: string | null;
  createdAt: string;
  lastUsedAt: string | null;
  status: 'active' | 'revoked';
}

/** MAX_KEYS_PER_COMPANY's default: each key has its own rate budget, so keys are capped (SECURITY.md) */
export const DEFAULT_MAX_KEYS_PER_COMPANY = 50;

export async function createKey(
  store: TxStore,
  input: { companyId: string; name: string; scope: Scope; campaignId?: string | null },
  now = Date.now(),
  maxKeys = DEFAULT_MAX_KEYS_PER_COMPANY,
): Promise<{ keyId: string; key: string }> {
  if (!(await store.companies.exists(input.companyId))) throw new AppError('not_found', `company ${input.companyId} not found`);
  if (input.campaignId) {
    const campaign = await store.campaigns.byId(input.campaignId);
    if (!campaign || campaign.company_id !== input.companyId) {
      throw new AppError('not_found', `campaign ${input.campaignId} not found in company ${input.companyId}`);
    }
  }
  const key = generateKeyValue();
  const keyId = newId('key_');
  // Counted and inserted under one lock, so two creates at once cannot both take the last place.
  await store.transaction(
    async (tx) => {
      const active = await tx.keys.activeCount(input.companyId);
      if (active >= maxKeys) {
        throw new AppError(
          'conflict',
          `company ${input.companyId} already has ${active} active API keys, the most MAX_KEYS_PER_COMPANY allows (${maxKeys}); revoke one first`,
        );
      }
      await tx.keys.insert({
        id: keyId,
        company_id: input.companyId,
        campaign_id: input.campaignId ?? null,
        name: input.name,
        scope: input.scope,
        key_hash: hashKey(key),
        created_at: now,
        revoked_at: null,
        last_used_at: null,
      });
    },
    { lock: `keys:${input.companyId}` },
  );
  return { keyId, key };
}

const iso = (ms: number | null) => (ms === null ? null : new Date(Number(ms)).toISOString());

/** never returns key values or hashes */
export async function listKeys(store: Store, companyId: string): Promise<KeySummary[]> {
  return (await store.keys.ofCompany(companyId)).map((r) => ({
    keyId: r.id,
    name: r.name,
    scope: r.scope,
    campaignId: r.campaign_id,
    createdAt: iso(r.created_at)!,
    lastUsedAt: iso(r.last_used_at),
    status: r.revoked_at === null ? 'active' : 'revoked',
  }));
}

/** true when the key existed and was active */
export const revokeKey = (store: Store, keyId: string, now = Date.now()): Promise<boolean> => store.keys.revoke(keyId, now);
