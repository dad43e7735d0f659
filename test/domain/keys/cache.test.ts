import { describe, expect, it } from 'vitest';
import { KeyCache } from '../../../src/domain/keys/cache.js';
import type { ApiKey } from '../../../src/domain/types.js';

const key = (id: string, accountId = 'acc_1', revokedAt: Date | null = null): ApiKey => ({
  id,
  accountId,
  prefix: 'slip_x',
  allowedIps: [],
  hash: `h-${id}`,
  createdAt: new Date(0),
  lastUsedAt: null,
  revokedAt,
});

describe('KeyCache', () => {
  it('serves a key until its TTL ends', () => {
    const cache = new KeyCache(1000);
    cache.set('h1', key('k1'), 0);
    expect(cache.get('h1', 999)?.id).toBe('k1');
    expect(cache.get('h1', 1000)).toBeUndefined();
  });

  it('never caches a revoked key, and a TTL of 0 caches nothing', () => {
    const cache = new KeyCache(1000);
    cache.set('h1', key('k1', 'acc_1', new Date()), 0);
    expect(cache.get('h1', 1)).toBeUndefined();
    const off = new KeyCache(0);
    off.set('h2', key('k2'), 0);
    expect(off.get('h2', 0)).toBeUndefined();
  });

  it('evicts by key and by account', () => {
    const cache = new KeyCache(60_000);
    cache.set('h1', key('k1', 'acc_1'), 0);
    cache.set('h2', key('k2', 'acc_1'), 0);
    cache.set('h3', key('k3', 'acc_2'), 0);
    cache.evictKey('k1');
    expect(cache.get('h1', 1)).toBeUndefined();
    expect(cache.get('h2', 1)?.id).toBe('k2');
    cache.evictAccount('acc_1');
    expect(cache.get('h2', 1)).toBeUndefined();
    expect(cache.get('h3', 1)?.id).toBe('k3');
  });

  it('drops the oldest entry when full', () => {
    const cache = new KeyCache(60_000, 2);
    cache.set('h1', key('k1'), 0);
    cache.set('h2', key('k2'), 0);
    cache.set('h3', key('k3'), 0);
    expect(cache.get('h1', 1)).toBeUndefined();
    expect(cache.get('h3', 1)?.id).toBe('k3');
  });

  it('remembers hashes of no live key for the TTL, apart from the live keys, so a flood of bad ones evicts none', () => {
    const cache = new KeyCache(1000, 2);
    cache.set('live', key('k1'), 0);
    cache.setUnknown('bad1', 0);
    expect(cache.isUnknown('bad1', 999)).toBe(true);
    expect(cache.isUnknown('bad1', 1000)).toBe(false);
    for (let i = 0; i < 10; i++) cache.setUnknown(`flood${i}`, 0);
    expect(cache.get('live', 1)?.id).toBe('k1');
    // Bounded: the oldest are forgotten first.
    expect(cache.isUnknown('flood0', 1)).toBe(false);
    expect(cache.isUnknown('flood9', 1)).toBe(true);
    const off = new KeyCache(0);
    off.setUnknown('bad', 0);
    expect(off.isUnknown('bad', 0)).toBe(false);
  });
});
