import { performance } from 'node:perf_hooks';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Equal spacing of 1/rate per unit, plus a credit of 50 ms worth of units built up while idle:
 * the credit absorbs timer lateness (setTimeout is ~1 ms coarse) without letting a long idle
 * period turn into a large burst. `take(n)` lets n units go at once and holds the next take for
 * their n intervals.
 */
export class Pacer {
  private next = 0;
  private readonly interval: number;
  private readonly credit: number;

  /** `rate` units per second; 0 = no pace. */
  constructor(rate: number) {
    this.interval = rate > 0 ? 1000 / rate : 0;
    this.credit = Math.max(0, Math.floor(rate * 0.05) - 1) * this.interval;
  }

  /** Resolves when these units may go, or null when they may go now. */
  take(units = 1): Promise<void> | null {
    if (this.interval === 0 || units <= 0) return null;
    const now = performance.now();
    const at = Math.max(this.next, now - this.credit);
    this.next = at + units * this.interval;
    return at > now ? sleep(at - now) : null;
  }
}
