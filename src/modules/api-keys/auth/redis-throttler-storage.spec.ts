import { afterAll, describe, expect, it, vi } from 'vitest';
import { RedisThrottlerStorage } from './redis-throttler-storage.js';

const storage = new RedisThrottlerStorage('redis://127.0.0.1:6379', {
  keyPrefix: `throttlestore_${process.pid}:`,
});
afterAll(async () => {
  const keys = await storage.redis.keys(`throttlestore_${process.pid}:*`);
  // keys() answers them with the prefix, which del() would add again.
  if (keys.length)
    await storage.redis.del(...keys.map((k) => k.slice(`throttlestore_${process.pid}:`.length)));
  storage.onModuleDestroy();
});

const summary = (r: { totalHits: number; isBlocked: boolean }) =>
  `${r.totalHits}${r.isBlocked ? ' blocked' : ''}`;

describe('RedisThrottlerStorage', () => {
  it('counts the hits of one tick in one call, each answered as if it had been counted alone', async () => {
    const calls = vi.spyOn(storage.redis, 'throttleCount');
    const together = await Promise.all(
      Array.from({ length: 5 }, () => storage.increment('together', 60_000, 3, 60_000, 'key')),
    );
    expect(calls).toHaveBeenCalledTimes(1);
    expect(calls.mock.calls[0]!.at(-1)).toBe(5);
    calls.mockRestore();
    const alone = [];
    for (let i = 0; i < 5; i++) alone.push(await storage.increment('alone', 60_000, 3, 60_000, 'key'));
    expect(together.map(summary)).toEqual(['1', '2', '3', '4 blocked', '5 blocked']);
    expect(together.map(summary)).toEqual(alone.map(summary));
    expect(together[4]).toMatchObject({ timeToExpire: 60, timeToBlockExpire: 60 });
  });

  it('keeps the counts of keys that arrive in the same tick apart, sent together in one pipeline', async () => {
    const pipelines = vi.spyOn(storage.redis, 'pipeline');
    const answers = await Promise.all(
      ['a', 'b', 'a', 'b', 'a'].map((k) => storage.increment(`apart-${k}`, 60_000, 2, 60_000, 'key')),
    );
    expect(pipelines).toHaveBeenCalledTimes(1);
    pipelines.mockRestore();
    expect(answers.map(summary)).toEqual(['1', '1', '2', '2', '3 blocked']);
  });

  it('fails every hit of a call Redis cannot answer, so the guard lets them through', async () => {
    const down = new RedisThrottlerStorage('redis://127.0.0.1:1', {
      enableOfflineQueue: false,
      lazyConnect: true,
      retryStrategy: () => null,
    });
    down.redis.on('error', () => undefined);
    const answers = await Promise.allSettled([
      down.increment('x', 1000, 1, 1000, 'key'),
      down.increment('x', 1000, 1, 1000, 'key'),
    ]);
    expect(answers.map((a) => a.status)).toEqual(['rejected', 'rejected']);
    // Two keys in one tick: one pipeline, and every hit of it fails.
    const both = await Promise.allSettled([
      down.increment('x', 1000, 1, 1000, 'key'),
      down.increment('y', 1000, 1, 1000, 'key'),
    ]);
    expect(both.map((a) => a.status)).toEqual(['rejected', 'rejected']);
    down.onModuleDestroy();
  });
});
