import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../../config/config.js';
import { PeriodicJob } from '../../../platform/periodic/periodic-job.js';
import { MessageStore } from '../../messages/message.store.js';
import { ScheduleStore, type ReleasedRequest } from '../../messages/schedule.store.js';
import { dispatchJobId, DispatchProducer, waitingChunks, type Chunk } from '../dispatch/dispatch.producer.js';

/**
 * Requests and (about) messages released per transaction: small enough that the first jobs are
 * queued, and the workers busy, while the next batch is being released.
 */
const REQUESTS_PER_BATCH = 100;
const MESSAGES_PER_BATCH = 2000;
/** Batches per tick, so one tick never holds the scanner for long; the next tick goes on. */
const BATCHES_PER_TICK = 50;

/**
 * Hands scheduled messages over when they are due. MySQL is the truth: every SCHEDULED message's
 * request carries due_at, and each worker asks MySQL every SCHEDULE_POLL_MS for requests due,
 * so nothing depends on a delayed job that Redis could lose. A due batch is released in one
 * transaction (SKIP LOCKED: several workers share the work, none releases a request twice) and
 * queued at once; many messages due in the same second go out together. A request due before
 * the next poll wakes the scanner at its due time. If the queueing does not get through (Redis
 * away, the worker killed right after the commit), the released messages are ACKNOWLEDGED with
 * no job, which the recovery sweep already finds and queues. Sending twice is ruled out further
 * on: a message is claimed before it is handed over.
 */
@Injectable()
export class DueScanner extends PeriodicJob<number> {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly schedules: ScheduleStore,
    private readonly messages: MessageStore,
    private readonly producer: DispatchProducer,
  ) {
    super(DueScanner.name, {
      everyMs: config.schedulePollMs,
      // A request due before the next poll is released when it falls due, not up to a poll late.
      nextDueAt: async () => (await schedules.nextDue())?.getTime() ?? null,
      failure: 'scheduled release failed',
    });
  }

  /** Releases and queues what is due now; returns how many requests were released. */
  async scan(): Promise<number> {
    return (await this.runNow()) ?? 0;
  }

  protected async round(stop: AbortSignal): Promise<number> {
    let released = 0;
    for (let batch = 0; batch < BATCHES_PER_TICK && !stop.aborted; batch++) {
      const due = await this.schedules.releaseDue(new Date(), REQUESTS_PER_BATCH, MESSAGES_PER_BATCH);
      if (due.length === 0) break;
      released += due.length;
      await Promise.all(due.map((r) => this.enqueue(r)));
      this.logger.debug(`released and queued ${due.length} due request(s)`);
    }
    return released;
  }

  private async enqueue(r: ReleasedRequest): Promise<void> {
    const chunks = waitingChunks(await this.messages.acceptedStates(r.id));
    if (chunks.length === 0) return;
    await this.clearFinished(r, chunks);
    if (!(await this.producer.enqueueChunks(r.channel, r.id, chunks, r.priority, r.test)))
      this.warnings.warn(`released request ${r.id} not queued now; the recovery sweep will queue it`);
  }

  /**
   * A request released in steps (messages a send window deferred go when their window opens) may
   * find an earlier step's job still kept under the chunk's id, finished: Bull would ignore a new
   * job of that id, so the finished one is removed first. One still waiting or running is left;
   * the recovery sweep queues what it leaves behind once it has finished.
   */
  private async clearFinished(r: ReleasedRequest, chunks: Chunk[]): Promise<void> {
    const queue = this.producer.queueFor(r.channel, r.test, r.priority);
    for (const c of chunks) {
      const job = await queue.getJob(dispatchJobId(r.id, c.index)).catch(() => null);
      if (job && ['completed', 'failed'].includes(await job.getState()))
        await job.remove().catch(() => undefined);
    }
  }
}
