// Resolving an API key on every keyed route (keys/gate.ts): the cached lookup, then whether
// the client's address may use it. Keys (and their allowed ranges) are
// cached for keyCacheTtlMs; changes made in this process evict at once.
import type { Store } from '../ports/store.js';
import { hashSecret } from './api-key.js';
import { isAddressAllowed } from './ip-allow-list.js';
import { KeyCache } from './cache.js';
import type { ApiKey } from '../types.js';

export type KeyLookup = { ok: true; key: ApiKey } | { ok: false; kind: 'invalid_api_key' } | { ok: false; kind: 'ip_not_allowed'; key: ApiKey };

export class KeyResolver {
  private readonly cache: KeyCache;

  constructor(
    private readonly store: Store,
    ttlMs: number,
  ) {
    this.cache = new KeyCache(ttlMs);
  }

  async resolve(secret: string, clientIp: string | undefined): Promise<KeyLookup> {
    const key = await this.find(secret);
    if (!key) return { ok: false, kind: 'invalid_api_key' };
    if (!isAddressAllowed(key.allowedIps, clientIp)) return { ok: false, kind: 'ip_not_allowed', key };
    return { ok: true, key };
  }

  /** A live (not revoked) key, from the cache or the store. */
  private async find(secret: string): Promise<ApiKey | null> {
    const hash = hashSecret(secret);
    const cached = this.cache.get(hash);
    if (cached) return cached;
    if (this.cache.isUnknown(hash)) return null;
    const key = await this.store.findApiKeyByHash(hash);
    if (!key || key.revokedAt) {
      this.cache.setUnknown(hash);
      return null;
    }
    this.cache.set(hash, key);
    return key;
  }

  /** Called when a key is revoked in this process. */
  forgetKey(keyId: string): void {
    this.cache.evictKey(keyId);
  }

  /** Called when an account is deleted in this process. */
  forgetAccount(accountId: string): void {
    this.cache.evictAccount(accountId);
  }
}
