// A short-lived cache of API key lookups, so the hot path does not read the
// key table on every request. Revocations and deletions made in this process
// evict at once; those made elsewhere (another instance, the CLI) take effect
// within the TTL. Hashes that matched no live key are remembered apart, for
// the same TTL: the same bad key sent again (a misconfigured client, a
// flood that repeats itself) reads no row, and a flood of distinct bad keys
// cannot push a merchant's live key out of the cache. A key is 192 random
// bits, so no hash is ever looked up before its key exists.
import type { ApiKey } from '../types.js';

interface Entry {
  key: ApiKey;
  expiresAt: number;
}

export class KeyCache {
  private readonly entries = new Map<string, Entry>();
  /** Hashes of no live key, by when they are forgotten. */
  private readonly unknown = new Map<string, number>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  get(hash: string, now = Date.now()): ApiKey | undefined {
    const entry = this.entries.get(hash);
    if (!entry) return undefined;
    if (entry.expiresAt <= now) {
      this.entries.delete(hash);
      return undefined;
    }
    return entry.key;
  }

  /** Only live keys are cached: a miss always goes to the store. */
  set(hash: string, key: ApiKey, now = Date.now()): void {
    if (this.ttlMs <= 0 || key.revokedAt) return;
    if (this.entries.size >= this.maxEntries) {
      // Maps iterate in insertion order: drop the oldest entry.
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(hash, { key, expiresAt: now + this.ttlMs });
  }

  /** True while `hash` is remembered as matching no live key. */
  isUnknown(hash: string, now = Date.now()): boolean {
    const expiresAt = this.unknown.get(hash);
    if (expiresAt === undefined) return false;
    if (expiresAt > now) return true;
    this.unknown.delete(hash);
    return false;
  }

  setUnknown(hash: string, now = Date.now()): void {
    if (this.ttlMs <= 0) return;
    if (this.unknown.size >= this.maxEntries) {
      const oldest = this.unknown.keys().next().value;
      if (oldest !== undefined) this.unknown.delete(oldest);
    }
    this.unknown.set(hash, now + this.ttlMs);
  }

  evictKey(keyId: string): void {
    for (const [hash, entry] of this.entries) if (entry.key.id === keyId) this.entries.delete(hash);
  }

  evictAccount(accountId: string): void {
    for (const [hash, entry] of this.entries) if (entry.key.accountId === accountId) this.entries.delete(hash);
  }
}
