import type { Logger } from '@nestjs/common';
import type { DoneCallback, Job, Queue } from 'bull';

/**
 * Starts `concurrency` loops taking `name` jobs from `queue`. Bull's `process` answers a promise
 * that rejects when its Redis connection closes before the loops are set up (a process stopped
 * moments after it started, or a Redis that is gone for good): an unhandled rejection that would
 * fail the process. Here a close that the queue itself began is expected and passes quietly; any
 * other failure is logged as an error, since this process then takes none of the queue's jobs
 * (the other workers and the recovery sweep still do).
 */
export function takeJobs<T>(
  queue: Queue<T>,
  name: string,
  concurrency: number,
  handler: (job: Job<T>, done?: DoneCallback) => Promise<unknown>,
  logger: Pick<Logger, 'error'>,
): void {
  // Closed early, Bull rejects with no reason at all.
  queue
    .process(name, concurrency, (job: Job<T>) => handler(job))
    .catch((err: unknown) => {
      if (isClosing(queue)) return;
      const why = err instanceof Error ? err.message : String(err);
      logger.error(`the ${queue.name} queue's workers did not start: ${why}`);
    });
}

/** Bull sets `closing` (its close promise) as soon as `close()` is called. */
function isClosing(queue: Queue): boolean {
  return Boolean((queue as Queue & { closing?: Promise<void> }).closing);
}
