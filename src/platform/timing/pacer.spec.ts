import { describe, expect, it } from 'vitest';
import { Pacer } from './pacer.js';

describe('Pacer', () => {
  it('holds the take after n units for n intervals, beyond the idle credit of 50 ms', async () => {
    const pacer = new Pacer(1000); // 1 ms per unit; credit 49 ms
    // Timed from before the first take, which the schedule counts from (a pause after it, on a
    // loaded machine, would otherwise come off the 100 ms).
    const started = performance.now();
    expect(pacer.take(50)).toBeNull(); // the credit covers these
    await pacer.take(100); // due about 1 ms from now
    await pacer.take(1); // due 100 intervals after the last take
    expect(performance.now() - started).toBeGreaterThanOrEqual(95);
  });

  it('keeps single units to the rate over many takes', async () => {
    const pacer = new Pacer(200); // 5 ms apart; credit 45 ms
    const started = performance.now();
    for (let i = 0; i < 101; i++) await pacer.take();
    expect(performance.now() - started).toBeGreaterThanOrEqual(500 - 45 - 10);
  });

  it('does not pace at rate 0', () => {
    const pacer = new Pacer(0);
    for (let i = 0; i < 1000; i++) expect(pacer.take(100)).toBeNull();
  });
});
