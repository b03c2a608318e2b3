import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PeriodicTask } from './periodic-task.js';

/** A run that ends only when the test says so. */
function gate() {
  let open!: () => void;
  const done = new Promise<void>((r) => (open = r));
  return { done, open };
}

describe('PeriodicTask', () => {
  const warned: string[] = [];
  const logger = { warn: (m: string) => void warned.push(m) };
  beforeEach(() => {
    vi.useFakeTimers();
    warned.length = 0;
  });
  afterEach(() => vi.useRealTimers());

  it('runs first after firstAfterMs, then everyMs after each run ends', async () => {
    let runs = 0;
    const task = new PeriodicTask({
      run: () => void runs++,
      everyMs: 1000,
      firstAfterMs: 10,
      logger,
      failure: 'x',
    });
    task.start();
    task.start(); // idempotent: one timer
    await vi.advanceTimersByTimeAsync(9);
    expect(runs).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(runs).toBe(1);
    await vi.advanceTimersByTimeAsync(3000);
    expect(runs).toBe(4);
    await task.stop();
  });

  it('never overlaps: a call during a run joins it, and the timer waits for its end', async () => {
    let started = 0;
    let current = gate();
    const task = new PeriodicTask({
      run: async () => {
        started++;
        await current.done;
        return started;
      },
      everyMs: 100,
      logger,
      failure: 'x',
    });
    task.start();
    await vi.advanceTimersByTimeAsync(100);
    expect(started).toBe(1);
    const joined = task.run();
    await vi.advanceTimersByTimeAsync(1000);
    expect(started).toBe(1);
    const first = current;
    current = gate();
    first.open();
    expect(await joined).toBe(1);
    await vi.advanceTimersByTimeAsync(99);
    expect(started).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(started).toBe(2);
    current.open();
    await task.stop();
  });

  it('reports a failed run as a warning, answers undefined, and runs again next time', async () => {
    let calls = 0;
    const task = new PeriodicTask({
      run: () => {
        calls++;
        if (calls === 1) throw new Error('database away');
        return calls;
      },
      everyMs: 50,
      logger,
      failure: 'sweep failed',
    });
    expect(await task.run()).toBeUndefined();
    expect(warned).toEqual(['sweep failed: database away']);
    task.start();
    await vi.advanceTimersByTimeAsync(50);
    expect(calls).toBe(2);
    expect(await task.run()).toBe(3);
    await task.stop();
  });

  it('words the warning with failure() when given a function', async () => {
    const task = new PeriodicTask({
      run: () => Promise.reject(new Error('locked')),
      everyMs: 50,
      logger,
      failure: (err) => `prune failed: ${err.message}; next try in one period`,
    });
    await task.run();
    expect(warned).toEqual(['prune failed: locked; next try in one period']);
  });

  it('runs next at nextDueAt when that comes before everyMs, and keeps everyMs when it is past, far or unknown', async () => {
    const runsAt: number[] = [];
    const t0 = Date.now();
    let due: number | null = t0 + 1030; // 30 ms after the first run
    const task = new PeriodicTask({
      run: () => void runsAt.push(Date.now() - t0),
      everyMs: 1000,
      nextDueAt: () => Promise.resolve(due),
      logger,
      failure: 'x',
    });
    task.start();
    await vi.advanceTimersByTimeAsync(1000);
    expect(runsAt).toEqual([1000]);
    due = null; // asked after the second run: nothing due, a full period
    await vi.advanceTimersByTimeAsync(31);
    expect(runsAt).toEqual([1000, 1031]);
    due = t0; // long past (another process holds it): no tight loop
    await vi.advanceTimersByTimeAsync(1000);
    expect(runsAt).toEqual([1000, 1031, 2031]);
    due = t0 + 60_000; // beyond the period
    await vi.advanceTimersByTimeAsync(1000);
    expect(runsAt).toEqual([1000, 1031, 2031, 3031]);
    await task.stop();
  });

  it('stop() also waits for a nextDueAt question under way (no query after the owner has closed)', async () => {
    const g = gate();
    let asked = 0;
    const task = new PeriodicTask({
      run: () => undefined,
      everyMs: 100,
      nextDueAt: async () => {
        asked++;
        await g.done;
        return null;
      },
      logger,
      failure: 'x',
    });
    task.start();
    await vi.advanceTimersByTimeAsync(100);
    expect(asked).toBe(1);
    let stopped = false;
    const stopping = task.stop().then(() => (stopped = true));
    await vi.advanceTimersByTimeAsync(0);
    expect(stopped).toBe(false);
    g.open();
    await stopping;
    await vi.advanceTimersByTimeAsync(1000);
    expect(asked).toBe(1);
  });

  it('stop() aborts the signal, waits for the run under way, and no run follows', async () => {
    const g = gate();
    let runs = 0;
    let seen: AbortSignal | undefined;
    let ended = false;
    const task = new PeriodicTask({
      run: async (signal) => {
        runs++;
        seen = signal;
        await g.done;
        ended = true;
      },
      everyMs: 10,
      logger,
      failure: 'x',
    });
    task.start();
    await vi.advanceTimersByTimeAsync(10);
    let stopped = false;
    const stopping = task.stop().then(() => (stopped = true));
    await vi.advanceTimersByTimeAsync(0);
    expect(seen?.aborted).toBe(true);
    expect(stopped).toBe(false);
    g.open();
    await stopping;
    expect(ended).toBe(true);
    await vi.advanceTimersByTimeAsync(1000);
    expect(runs).toBe(1);
    task.start(); // a stopped task stays stopped
    await vi.advanceTimersByTimeAsync(1000);
    expect(runs).toBe(1);
  });
});
