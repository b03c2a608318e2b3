import { Injectable, Logger } from '@nestjs/common';
import { DISPATCH_CHUNK, DispatchProducer } from '../../../delivery/dispatch/dispatch.producer.js';

/**
 * Messages per second the chat workers are assumed to hand to the provider. Not configurable
 * yet (config.ts has no such variable); a constant keeps the estimate honest about its basis.
 */
export const CHAT_DISPATCH_RATE_PER_SECOND = 50;
/** Fixed latency on top of the backlog: pick-up by a worker and the provider's own hop. */
export const CHAT_DELIVERY_OVERHEAD_MS = 2_000;
const BACKLOG_READ_TIMEOUT_MS = 500;

/** Which queue a request's jobs went to: a test key's to the test queue, a high-priority one to the priority queue. */
export interface EstimateQueue {
  test: boolean;
  priority: 'high' | 'normal';
}

/**
 * `estimated_delivery`: now + time to drain the queue ahead of this request (the chat queue, or
 * the priority or test queue the request went to) + this request's own messages, at the
 * assumed dispatch rate.
 *
 * The backlog is read as a job count (waiting + paused + delayed: one cheap Redis round trip)
 * times DISPATCH_CHUNK, the most message ids one job carries. Summing each job's ids would be
 * exact but would read every job out of Redis on every chat request; the upper bound errs on
 * the side of promising too late rather than too early. Our own jobs are already in the count,
 * so they are taken out and replaced by our exact message count.
 */
@Injectable()
export class ChatDeliveryEstimator {
  private readonly logger = new Logger(ChatDeliveryEstimator.name);

  constructor(private readonly dispatch: DispatchProducer) {}

  async estimate(ownMessages: number, queue: EstimateQueue, now = Date.now()): Promise<string> {
    const queuedJobs = await this.queuedJobs(queue);
    const ownJobs = Math.ceil(ownMessages / DISPATCH_CHUNK);
    const backlog = Math.max(0, queuedJobs - ownJobs) * DISPATCH_CHUNK + ownMessages;
    const ms = CHAT_DELIVERY_OVERHEAD_MS + Math.ceil((backlog / CHAT_DISPATCH_RATE_PER_SECOND) * 1000);
    return new Date(now + ms).toISOString();
  }

  /** The request is already stored and charged: a slow or absent Redis must not fail it, only blur the estimate. */
  private async queuedJobs({ test, priority }: EstimateQueue): Promise<number> {
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        this.dispatch.queueFor('chat', test, priority).count(),
        new Promise<number>((_, reject) => {
          timer = setTimeout(() => reject(new Error('timed out')), BACKLOG_READ_TIMEOUT_MS);
        }),
      ]);
    } catch (err) {
      this.logger.warn(
        `chat backlog unknown (${(err as Error).message}); estimating from this request alone`,
      );
      return 0;
    } finally {
      clearTimeout(timer);
    }
  }
}
