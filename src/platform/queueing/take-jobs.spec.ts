import Bull from 'bull';
import { describe, expect, it } from 'vitest';
import { takeJobs } from './take-jobs.js';

/** A logger that keeps what it was told. */
function recorder() {
  const errors: string[] = [];
  return { errors, error: (m: string) => void errors.push(m) };
}

/** Rejections no one handled while `run` ran, and a moment after. */
async function unhandledDuring(run: () => Promise<void>): Promise<unknown[]> {
  const seen: unknown[] = [];
  const listener = (reason: unknown) => void seen.push(reason);
  process.on('unhandledRejection', listener);
  try {
    await run();
    await new Promise((r) => setTimeout(r, 200));
  } finally {
    process.off('unhandledRejection', listener);
  }
  return seen;
}

describe('takeJobs', () => {
  it('runs the handler for each job of the name it takes', async () => {
    const queue = new Bull<{ n: number }>(`take-jobs-${process.pid}-${Date.now()}`, 'redis://127.0.0.1:6379');
    const log = recorder();
    const seen: number[] = [];
    takeJobs(queue, 'work', 2, async (job) => void seen.push(job.data.n), log);
    await queue.addBulk([1, 2, 3].map((n) => ({ name: 'work', data: { n } })));
    for (let i = 0; i < 100 && seen.length < 3; i++) await new Promise((r) => setTimeout(r, 50));
    await queue.obliterate({ force: true });
    await queue.close();
    expect(seen.sort()).toEqual([1, 2, 3]);
    expect(log.errors).toEqual([]);
  });

  it('lets a queue closed at once, or while its workers start (its connection being named), end quietly', async () => {
    const log = recorder();
    const unhandled = await unhandledDuring(async () => {
      for (let i = 0; i < 10; i++) {
        const queue = new Bull(`take-jobs-close-${process.pid}-${i}`, 'redis://127.0.0.1:6379');
        takeJobs(queue, 'work', 1, async () => undefined, log);
        // The first at once, before its workers are set up; the others 1-9 ms into their start.
        if (i > 0) await new Promise((r) => setTimeout(r, i));
        await queue.close();
      }
    });
    expect(unhandled.map(String)).toEqual([]);
    expect(log.errors).toEqual([]);
  });

  it('logs, rather than leaves unhandled, workers that fail to start on a queue nobody closed', async () => {
    const log = recorder();
    const failing = (reason: unknown) =>
      ({ name: 'refusing', process: () => Promise.reject(reason) }) as unknown as Bull.Queue;
    const unhandled = await unhandledDuring(async () => {
      takeJobs(failing(new Error('READONLY')), 'work', 1, async () => undefined, log);
      takeJobs(failing(undefined), 'work', 1, async () => undefined, log);
    });
    expect(unhandled).toEqual([]);
    expect(log.errors).toEqual([
      "the refusing queue's workers did not start: READONLY",
      "the refusing queue's workers did not start: undefined",
    ]);
  });
});
