import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CacheStats } from '../metrics/cache-stats.service.js';
import { ApiKeyCache, KEY_CACHE_MAX_ENTRIES, KEY_CACHE_TTL_MS } from './api-key.cache.js';
import type { ResolvedKey } from './resolved-key.js';

const hash = (s: string) => createHash('sha256').update(s).digest();
const resolved = (id: string, accountId = '1') =>
  ({ key: { id }, account: { id: accountId }, allowList: null }) as unknown as ResolvedKey;

describe('ApiKeyCache', () => {
  afterEach(() => vi.useRealTimers());

  it('answers a repeated lookup from memory until the TTL passes, counting hits and misses', async () => {
    vi.useFakeTimers();
    const stats = new CacheStats();
    const cache = new ApiKeyCache(stats);
    const load = vi.fn(async () => resolved('7'));
    for (let i = 0; i < 10; i++) await cache.get(hash('k'), load);
    expect(load).toHaveBeenCalledTimes(1);
    expect(stats.snapshot()).toEqual({ hits: 9, misses: 1 });
    vi.advanceTimersByTime(KEY_CACHE_TTL_MS + 1);
    await cache.get(hash('k'), load);
    expect(load).toHaveBeenCalledTimes(2);
  });

  it('remembers an unknown key briefly too', async () => {
    const cache = new ApiKeyCache();
    const load = vi.fn(async () => null);
    expect(await cache.get(hash('nope'), load)).toBeNull();
    expect(await cache.get(hash('nope'), load)).toBeNull();
    expect(load).toHaveBeenCalledTimes(1);
  });

  it('shares one query between concurrent misses of one key', async () => {
    const cache = new ApiKeyCache();
    const load = vi.fn(() => new Promise<ResolvedKey>((r) => setTimeout(() => r(resolved('7')), 10)));
    await Promise.all(Array.from({ length: 20 }, () => cache.get(hash('k'), load)));
    expect(load).toHaveBeenCalledTimes(1);
  });

  it('stays bounded when flooded with random keys', async () => {
    const cache = new ApiKeyCache();
    for (let i = 0; i < KEY_CACHE_MAX_ENTRIES + 500; i++)
      await cache.get(hash(`random-${i}`), async () => null);
    expect(cache.size.unknown).toBeLessThanOrEqual(KEY_CACHE_MAX_ENTRIES);
  });

  it('drops a key at once on invalidation, whatever secret it was found by', async () => {
    const cache = new ApiKeyCache();
    const load = vi.fn(async () => resolved('7'));
    await cache.get(hash('old-secret'), load);
    cache.invalidateKey('7');
    await cache.get(hash('old-secret'), load);
    expect(load).toHaveBeenCalledTimes(2);
  });

  it('does not keep what a lookup read if the key was invalidated while it was reading', async () => {
    const cache = new ApiKeyCache();
    let release!: () => void;
    const slow = () => new Promise<ResolvedKey>((r) => (release = () => r(resolved('7'))));
    const first = cache.get(hash('k'), slow);
    cache.invalidateKey('7');
    release();
    await first;
    const load = vi.fn(async () => null);
    expect(await cache.get(hash('k'), load)).toBeNull();
    expect(load).toHaveBeenCalledTimes(1);
  });
});
