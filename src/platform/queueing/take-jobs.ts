import type { Logger } from '@nestjs/common';
import type { DoneCallback, Job, Queue } from 'bull';

/**
 * Starts `concurrency` loops taking `name` jobs from `queue`. Bull's `process` answers a promise
 * that rejects when its Redis connection closes before the loops are set up (a process stopped
 * moments after it started, or a Redis that is gone for good): an unhandled rejection that would
 * fail the process. Here a close that the queue itself began is expected and passes quietly; any
 * other failure is logged as an error, since this process then takes none of the queue's jobs
 * (the other workers and the recovery sweep still do).
 *
 * `process` also names the queue's blocking connection (CLIENT SETNAME, for CLIENT LIST) in a
 * promise it neither returns nor handles: a queue closed while that is under way (within about
 * 10 ms of the start on loopback) rejected it unhandled, with "Connection is closed.", and Node
 * stopped the process. A name not given is left so: the connection works the same without it.
 */
export function takeJobs<T>(
  queue: Queue<T>,
  name: string,
  concurrency: number,
  handler: (job: Job<T>, done?: DoneCallback) => Promise<unknown>,
  logger: Pick<Logger, 'error'>,
): void {
  const named = queue as Queue<T> & { setWorkerName?: () => Promise<void> };
  const setWorkerName = named.setWorkerName;
  if (setWorkerName) named.setWorkerName = () => setWorkerName.call(queue).catch(() => undefined);
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
