import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { aheadUpTo, granted, SharedThroughput, sharedUpTo } from './shared-throughput.js';

describe('slot shares', () => {
  it('the first nine tenths of a second share the TPS evenly and reach exactly the TPS; the last grants nothing more', () => {
    for (const tps of [1, 3, 7, 10, 99, 500, 1234]) {
      expect(sharedUpTo(tps, 8), `tps ${tps}`).toBe(tps);
      expect(sharedUpTo(tps, 9), `tps ${tps}`).toBe(tps);
      for (let slot = 1; slot < 10; slot++)
        expect(sharedUpTo(tps, slot)).toBeGreaterThanOrEqual(sharedUpTo(tps, slot - 1));
    }
    expect(sharedUpTo(900, 0)).toBe(100);
    expect(sharedUpTo(900, 4)).toBe(500);
  });

  it('lets high-priority submits run one tenth (or one submit) ahead of the pace, never past the TPS', () => {
    expect(aheadUpTo(900, 0)).toBe(200);
    expect(aheadUpTo(900, 7)).toBe(900);
    expect(aheadUpTo(900, 8)).toBe(900);
    expect(aheadUpTo(2, 0)).toBe(1);
    expect(aheadUpTo(2, 8)).toBe(2);
    for (const tps of [1, 3, 7, 500])
      for (let slot = 0; slot < 10; slot++) {
        expect(aheadUpTo(tps, slot)).toBeGreaterThan(Math.min(tps - 1, sharedUpTo(tps, slot)));
        expect(aheadUpTo(tps, slot)).toBeLessThanOrEqual(tps);
      }
  });

  it('grants only the points numbered within the limit, to whoever added them', () => {
    expect(granted(5, 5, 50)).toBe(5);
    expect(granted(55, 10, 50)).toBe(5);
    expect(granted(70, 10, 50)).toBe(0);
  });
});

describe('SharedThroughput against Redis', () => {
  const redis = new Redis('redis://127.0.0.1:6379');
  afterAll(() => redis.disconnect());

  it('two processes sharing one connector never get more than its TPS in any calendar second, and high priority goes first', async () => {
    const keyPrefix = `tps-test-${process.pid}-${Date.now()}`;
    const tps = 100;
    const a = new SharedThroughput({ redis, keyPrefix, connector: 'c', tps });
    const b = new SharedThroughput({ redis, keyPrefix, connector: 'c', tps });
    const perSecond = new Map<number, number>();
    const grant = () => {
      const s = Math.floor(Date.now() / 1000);
      perSecond.set(s, (perSecond.get(s) ?? 0) + 1);
    };
    const order: string[] = [];
    const takes: Array<Promise<unknown> | null> = [];
    for (let i = 0; i < 150; i++) {
      takes.push(a.take(false)?.then(grant) ?? null);
      takes.push(b.take(false)?.then(grant) ?? null);
    }
    // Queued behind 150 normal submits in the same process, it is still served first.
    takes.push(a.take(true)?.then(() => order.push('high')) ?? null);
    void a.take(false)?.then(() => order.push('normal-after'));
    await Promise.all(takes);
    expect([...perSecond.values()].reduce((x, y) => x + y, 0)).toBe(300);
    for (const [second, n] of perSecond) expect(n, `second ${second}`).toBeLessThanOrEqual(tps);
    expect(order[0]).toBe('high');
    a.close();
    b.close();
  });

  it('a high-priority submit takes a point at once; normal ones keep to their tenth', async () => {
    // At 2 TPS the first four tenths of a second grant normal submits nothing (sharedUpTo(2, 3) = 0).
    const keyPrefix = `tps-test-high-${process.pid}-${Date.now()}`;
    const a = new SharedThroughput({ redis, keyPrefix, connector: 'c', tps: 2 });
    const b = new SharedThroughput({ redis, keyPrefix, connector: 'c', tps: 2 });
    await new Promise((r) => setTimeout(r, 1000 - (Date.now() % 1000) + 5));
    const second = Math.floor(Date.now() / 1000);
    const tenth = () => Math.floor(Date.now() / 100) - second * 10;
    const at: Record<string, number> = {};
    // The normal one makes the pump wait for a later tenth; the high one arriving meanwhile wakes it.
    const normal = a.take(false)?.then(() => (at.normal = tenth()));
    const other = b.take(false)?.then(() => (at.other = tenth()));
    await new Promise((r) => setTimeout(r, 20));
    const high = a.take(true)?.then(() => (at.high = tenth()));
    await Promise.all([normal, other, high]);
    // In the tenth it arrived in: the pump's wait for the next tenth was cut short.
    expect(at.high).toBe(0);
    // The second had two points: the high one took one, so one of the normal ones waits for the next second.
    expect(Math.min(at.normal, at.other)).toBeGreaterThanOrEqual(4);
    expect(Math.max(at.normal, at.other)).toBeGreaterThanOrEqual(10);
    a.close();
    b.close();
  });

  it('a throttling answer halves the pace this process takes', () => {
    const t = new SharedThroughput({ redis, keyPrefix: 'unused', connector: 'c', tps: 400 });
    t.throttled();
    expect(t.currentTps).toBe(200);
    t.throttled();
    expect(t.currentTps).toBe(100);
    t.close();
  });
});
