import { afterEach, describe, expect, it, vi } from 'vitest';
import { MicroBatcher } from './micro-batcher.js';

/** A promise with its settle functions, to hold a flush open while the test pushes more. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  return { open, opened };
}

describe('MicroBatcher', () => {
  it('hands the items pushed in one tick to a single flush, in order', async () => {
    const batches: number[][] = [];
    const b = new MicroBatcher<number>({ flush: async (items) => void batches.push(items) });
    await Promise.all([b.push(1), b.push(2), b.push(3)]);
    expect(batches).toEqual([[1, 2, 3]]);
  });

  it('answers each item with its own outcome', async () => {
    const b = new MicroBatcher<number, string>({
      flush: async (items) =>
        items.map((n) =>
          n % 2
            ? { status: 'fulfilled' as const, value: `odd ${n}` }
            : { status: 'rejected' as const, reason: n },
        ),
    });
    const results = await Promise.allSettled([b.push(1), b.push(2), b.push(3)]);
    expect(results).toEqual([
      { status: 'fulfilled', value: 'odd 1' },
      { status: 'rejected', reason: 2 },
      { status: 'fulfilled', value: 'odd 3' },
    ]);
  });

  it('rejects every item of a batch whose flush throws, and goes on with the next batch', async () => {
    let calls = 0;
    const b = new MicroBatcher<number>({
      flush: async () => {
        if (++calls === 1) throw new Error('down');
      },
    });
    const first = await Promise.allSettled([b.push(1), b.push(2)]);
    expect(first.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect((first[0] as PromiseRejectedResult).reason).toEqual(new Error('down'));
    await expect(b.push(3)).resolves.toBeUndefined();
  });

  it('rejects the items a flush gives no outcome for', async () => {
    const b = new MicroBatcher<number, number>({
      flush: async () => [{ status: 'fulfilled' as const, value: 7 }],
    });
    const [one, two] = await Promise.allSettled([b.push(1), b.push(2)]);
    expect(one).toEqual({ status: 'fulfilled', value: 7 });
    expect(two.status).toBe('rejected');
  });

  it('cuts batches at maxBatch, keeping the order', async () => {
    const batches: number[][] = [];
    const b = new MicroBatcher<number>({ maxBatch: 2, flush: async (items) => void batches.push(items) });
    await Promise.all([1, 2, 3, 4, 5].map((n) => b.push(n)));
    expect(batches).toEqual([[1, 2], [3, 4], [5]]);
  });

  it('runs one flush at a time: items pushed during a flush wait and go together in the next', async () => {
    const g = gate();
    const batches: number[][] = [];
    let running = 0;
    let most = 0;
    const b = new MicroBatcher<number>({
      flush: async (items) => {
        most = Math.max(most, ++running);
        batches.push(items);
        if (items[0] === 1) await g.opened;
        running--;
      },
    });
    const first = b.push(1);
    await new Promise((r) => setImmediate(r));
    expect(batches).toEqual([[1]]);
    const later = [b.push(2), b.push(3)];
    await new Promise((r) => setImmediate(r));
    expect(batches).toEqual([[1]]);
    g.open();
    await Promise.all([first, ...later]);
    expect(batches).toEqual([[1], [2, 3]]);
    expect(most).toBe(1);
  });

  it('with overlap, flushes a new tick while an earlier flush is under way', async () => {
    const g = gate();
    const batches: number[][] = [];
    const b = new MicroBatcher<number>({
      overlap: true,
      flush: async (items) => {
        batches.push(items);
        if (items[0] === 1) await g.opened;
      },
    });
    const first = b.push(1);
    await new Promise((r) => setImmediate(r));
    await b.push(2);
    expect(batches).toEqual([[1], [2]]);
    g.open();
    await first;
  });

  it('drain waits until every pushed item has settled, failures included', async () => {
    const g = gate();
    const done: number[] = [];
    const b = new MicroBatcher<number>({
      flush: async (items) => {
        await g.opened;
        done.push(...items);
        if (items.includes(2)) throw new Error('refused');
      },
      maxBatch: 1,
    });
    const pushed = [b.push(1), b.push(2), b.push(3)].map((p) => p.catch(() => undefined));
    let drained = false;
    const draining = b.drain().then(() => (drained = true));
    await new Promise((r) => setImmediate(r));
    expect(drained).toBe(false);
    g.open();
    await draining;
    expect(done).toEqual([1, 2, 3]);
    await Promise.all(pushed);
    await expect(b.drain()).resolves.toBeUndefined();
  });

  it('refuses a maxBatch below one', () => {
    expect(() => new MicroBatcher({ maxBatch: 0, flush: async () => undefined })).toThrow(RangeError);
  });
});

describe('MicroBatcher with a delay', () => {
  afterEach(() => vi.useRealTimers());

  it('collects what is added within delayMs of the first item into one flush', async () => {
    vi.useFakeTimers();
    const batches: number[][] = [];
    const b = new MicroBatcher<number>({ delayMs: 500, flush: async (items) => void batches.push(items) });
    b.add(1);
    await vi.advanceTimersByTimeAsync(300);
    b.add(2);
    expect(batches).toEqual([]);
    await vi.advanceTimersByTimeAsync(200);
    expect(batches).toEqual([[1, 2]]);
    b.add(3);
    await vi.advanceTimersByTimeAsync(500);
    expect(batches).toEqual([[1, 2], [3]]);
  });

  it('flushes a full batch at once, without waiting for the delay', async () => {
    vi.useFakeTimers();
    const batches: number[][] = [];
    const b = new MicroBatcher<number>({
      delayMs: 10_000,
      maxBatch: 3,
      flush: async (items) => void batches.push(items),
    });
    for (const n of [1, 2, 3]) b.add(n);
    await vi.advanceTimersByTimeAsync(0);
    expect(batches).toEqual([[1, 2, 3]]);
    b.add(4);
    await vi.advanceTimersByTimeAsync(9_999);
    expect(batches).toEqual([[1, 2, 3]]);
    await vi.advanceTimersByTimeAsync(1);
    expect(batches).toEqual([[1, 2, 3], [4]]);
  });

  it('keeps at most maxWaiting items, dropping the oldest and saying how many', async () => {
    vi.useFakeTimers();
    const batches: number[][] = [];
    const dropped: number[] = [];
    const b = new MicroBatcher<number>({
      delayMs: 100,
      maxWaiting: 3,
      onDrop: (n) => dropped.push(n),
      flush: async (items) => void batches.push(items),
    });
    for (const n of [1, 2, 3, 4, 5]) b.add(n);
    await vi.advanceTimersByTimeAsync(100);
    expect(batches).toEqual([[3, 4, 5]]);
    expect(dropped).toEqual([1, 1]);
  });

  it('tries requeued items again in the next round, in front of newer ones, not in the same round', async () => {
    vi.useFakeTimers();
    const seen: number[][] = [];
    let fail = true;
    const b: MicroBatcher<number> = new MicroBatcher<number>({
      delayMs: 1000,
      flush: async (items) => {
        seen.push(items);
        if (fail) b.requeue(items);
      },
    });
    b.add(1);
    await vi.advanceTimersByTimeAsync(1000);
    expect(seen).toEqual([[1]]);
    b.add(2);
    fail = false;
    await vi.advanceTimersByTimeAsync(999);
    expect(seen).toEqual([[1]]);
    await vi.advanceTimersByTimeAsync(1);
    expect(seen).toEqual([[1], [1, 2]]);
    await expect(b.drain()).resolves.toBeUndefined();
  });

  it('close flushes what waits at once and starts no timer afterwards', async () => {
    vi.useFakeTimers();
    const batches: number[][] = [];
    const b = new MicroBatcher<number>({ delayMs: 60_000, flush: async (items) => void batches.push(items) });
    b.add(1);
    b.add(2);
    await b.close();
    expect(batches).toEqual([[1, 2]]);
    b.add(3);
    await vi.advanceTimersByTimeAsync(120_000);
    expect(batches).toEqual([[1, 2]]);
    expect(b.waiting).toBe(1);
  });

  it("add never rejects: a failing flush is the flush owner's to report", async () => {
    const b = new MicroBatcher<number>({
      flush: async () => {
        throw new Error('down');
      },
    });
    b.add(1);
    await expect(b.drain()).resolves.toBeUndefined();
  });
});
