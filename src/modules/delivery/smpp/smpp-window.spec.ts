import { describe, expect, it } from 'vitest';
import { Window } from './smpp-link.js';
import { highPriorityReserve } from './smpp.transport.js';

describe('SMPP window', () => {
  it('keeps its reserved slots for high-priority submits, which also go before waiting normal ones', async () => {
    const w = new Window(5, 2);
    const order: string[] = [];
    for (let i = 0; i < 3; i++) await w.acquire(false);
    void w.acquire(false).then(() => order.push('normal'));
    await Promise.resolve();
    // Three normal submits hold the three unreserved slots: a fourth waits although two are free.
    expect(w.inUse).toBe(3);
    expect(w.queued).toBe(1);
    await w.acquire(true);
    await w.acquire(true);
    expect(w.inUse).toBe(5);
    void w.acquire(true).then(() => order.push('high'));
    // A slot freed goes to the high-priority waiter first; the normal one gets one only when
    // fewer than the three unreserved slots are held.
    w.release();
    await Promise.resolve();
    expect(order).toEqual(['high']);
    w.release();
    await Promise.resolve();
    expect(order).toEqual(['high']);
    w.release();
    await Promise.resolve();
    expect(order).toEqual(['high']);
    w.release();
    await Promise.resolve();
    expect(order).toEqual(['high', 'normal']);
    expect(w.inUse).toBe(3);
  });

  it('reserves one slot in 50 of a window of 10 or more, none of a smaller one', () => {
    expect([1, 9, 10, 50, 51, 100, 200].map(highPriorityReserve)).toEqual([0, 0, 1, 1, 2, 2, 4]);
  });
});
