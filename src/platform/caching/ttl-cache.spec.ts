import { describe, expect, it, vi } from 'vitest';
import { TtlCache } from './ttl-cache.js';

describe('TtlCache', () => {
  it('answers a fresh value without reading, and peek has it without a promise', async () => {
    const cache = new TtlCache<string>(1000, 10);
    const read = vi.fn(() => Promise.resolve('a'));
    expect(cache.peek('k')).toBeUndefined();
    expect(await cache.get('k', read)).toBe('a');
    expect(await cache.get('k', read)).toBe('a');
    expect(cache.peek('k')).toBe('a');
    expect(read).toHaveBeenCalledTimes(1);
  });

  it('shares one read among the callers that arrive while it is under way', async () => {
    const cache = new TtlCache<number>(1000, 10);
    let release!: (v: number) => void;
    const read = vi.fn(() => new Promise<number>((r) => (release = r)));
    const answers = Promise.all([cache.get('k', read), cache.get('k', read), cache.get('k', read)]);
    release(7);
    expect(await answers).toEqual([7, 7, 7]);
    expect(read).toHaveBeenCalledTimes(1);
  });

  it('reads again once the value is older than its time to live', async () => {
    vi.useFakeTimers({ now: 0 });
    try {
      const cache = new TtlCache<number>(1000, 10);
      let n = 0;
      const read = () => Promise.resolve(++n);
      expect(await cache.get('k', read)).toBe(1);
      vi.setSystemTime(999);
      expect(cache.peek('k')).toBe(1);
      vi.setSystemTime(1000);
      expect(cache.peek('k')).toBeUndefined();
      expect(await cache.get('k', read)).toBe(2);
    } finally {
      vi.useRealTimers();
    }
  });

  it('does not keep what a read started before a delete answers, and the next get reads anew', async () => {
    const cache = new TtlCache<string>(1000, 10);
    let release!: (v: string) => void;
    const first = cache.get('k', () => new Promise<string>((r) => (release = r)));
    cache.delete('k');
    const second = cache.get('k', () => Promise.resolve('new'));
    release('old');
    expect(await first).toBe('old');
    expect(await second).toBe('new');
    expect(cache.peek('k')).toBe('new');
  });

  it('drops everything once it holds maxEntries, rather than growing', async () => {
    const cache = new TtlCache<number>(1000, 2);
    await cache.get('a', () => Promise.resolve(1));
    await cache.get('b', () => Promise.resolve(2));
    await cache.get('c', () => Promise.resolve(3));
    expect([cache.peek('a'), cache.peek('b'), cache.peek('c')]).toEqual([undefined, undefined, 3]);
  });
});
