import { describe, expect, it } from 'vitest';
import { PeriodicJob } from './periodic-job.js';

class Counting extends PeriodicJob<number> {
  rounds = 0;
  constructor(everyMs: number) {
    super('Counting', { everyMs, failure: 'counting failed' });
  }
  protected async round(): Promise<number> {
    return ++this.rounds;
  }
  now(): Promise<number | undefined> {
    return this.runNow();
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('PeriodicJob', () => {
  it('runs its rounds from bootstrap until shutdown, and one on demand', async () => {
    const job = new Counting(10);
    expect(await job.now()).toBe(1);
    job.onApplicationBootstrap();
    await sleep(80);
    await job.onApplicationShutdown();
    const after = job.rounds;
    expect(after).toBeGreaterThan(2);
    await sleep(50);
    expect(job.rounds).toBe(after);
  });
});
