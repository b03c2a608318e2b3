import { Inject, Injectable } from '@nestjs/common';
import { PeriodicJob } from '../../../platform/periodic/periodic-job.js';
import { APP_CONFIG, type AppConfig } from '../../../config/config.js';
import { MessageStore } from '../../messages/message.store.js';
import type { Queue } from 'bull';
import type { QueuedRequest } from '../../messages/message.types.js';
import type { DispatchJob } from '../dispatch/dispatch.constants.js';
import { jobOfChunk } from '../dispatch/shared-jobs.js';
import { dispatchJobId, DispatchProducer, waitingChunks, type Chunk } from '../dispatch/dispatch.producer.js';
import { ReceiptExpiry } from '../receipts/receipt-expiry.service.js';
import { STATE_CHANGE_LISTENER, type StateChangeListener } from '../lifecycle/state-change.listener.js';

/** Bull states in which a job will still run (or is running) without help. */
const ALIVE = new Set(['waiting', 'active', 'delayed', 'paused']);
/** Requests examined per round for lost jobs; the rest wait for the next round (a cursor walks them all). */
const STRANDED_PER_ROUND = 50;
/** Requests never enqueued that are queued per round. */
const UNQUEUED_PER_ROUND = 200;

/**
 * Nothing stays stranded between MySQL and Redis. MySQL is the truth: a message is waiting
 * for as long as it is ACKNOWLEDGED, and each round looks for such messages whose job is gone.
 *
 * - A request stored but never enqueued (Redis down at the moment of the send, or a crash
 *   between commit and enqueue) still has enqueued_at NULL: its waiting messages are queued.
 * - A request enqueued, with messages still ACKNOWLEDGED and none of its messages changed for
 *   SWEEP_STRANDED_AFTER_MS, has its jobs looked up in the queue (job ids are fixed per chunk
 *   of the request). A chunk whose job is missing (Redis restarted empty, flushed, failed over
 *   to a replica that lagged), completed or failed while messages of it still wait is queued
 *   again with just those messages. A job still waiting, delayed or running is left alone:
 *   Bull itself hands a dead worker's job to another after QUEUE_LOCK_MS.
 *
 * Each round also closes out messages whose receipt never came (ReceiptExpiry) and queues the
 * callback events that are kept in MySQL but no longer (or not yet) in Redis (the state-change
 * listener: callbacks' outbox).
 *
 * The quiet period is what keeps a requeued job from racing one still in a worker's hands
 * when Redis lost track of it: a worker records every slice it hands over, so a request whose
 * messages have not moved for that long is not being sent by anyone. The dispatcher sends
 * only ACKNOWLEDGED messages, so nothing recorded as sent goes again.
 */
@Injectable()
export class RecoverySweep extends PeriodicJob<number> {
  private cursor = '0';

  constructor(
    private readonly store: MessageStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly producer: DispatchProducer,
    private readonly receipts: ReceiptExpiry,
    @Inject(STATE_CHANGE_LISTENER) private readonly listener: StateChangeListener,
  ) {
    super(RecoverySweep.name, {
      everyMs: config.sweepIntervalMs,
      failure: 'sweep failed',
    });
  }

  /** Returns how many requests were (re)enqueued (0 when the round failed). */
  async sweep(): Promise<number> {
    return (await this.runNow()) ?? 0;
  }

  protected async round(): Promise<number> {
    const enqueued = (await this.unqueued()) + (await this.stranded());
    await this.receipts.expire();
    await this.listener.recover();
    return enqueued;
  }

  private async unqueued(): Promise<number> {
    const stale = await this.store.findUnenqueued(this.config.sweepMinAgeMs, UNQUEUED_PER_ROUND);
    let enqueued = 0;
    for (const req of stale) {
      // Its shared job is there, only the mark was lost: marked now, not queued twice.
      if (await this.inLiveSharedJob(req)) {
        await this.store.markEnqueued([String(req.id)]);
        continue;
      }
      const chunks = await this.waitingChunks(String(req.id));
      const queued = await this.producer.enqueueChunks(
        req.channel,
        String(req.id),
        chunks,
        req.priority,
        Boolean(req.test_mode),
      );
      if (!queued) break; // Redis still away: next round
      enqueued++;
    }
    if (enqueued) this.logger.log(`queued ${enqueued} request(s) that had not reached the queue`);
    return enqueued;
  }

  private async stranded(): Promise<number> {
    const candidates = await this.store.findWaitingRequests(this.cursor, STRANDED_PER_ROUND);
    this.cursor = candidates.length < STRANDED_PER_ROUND ? '0' : String(candidates.at(-1)!.id);
    if (candidates.length === 0) return 0;
    // Enqueued a while ago, and no message of the request has changed since.
    const quiet = await this.store.findStranded(
      candidates.map((c) => c.id),
      this.config.sweepStrandedAfterMs,
    );
    let requeued = 0;
    let messages = 0;
    for (const req of quiet) {
      const id = String(req.id);
      const test = Boolean(req.test_mode);
      const lost = await this.lostChunks(
        this.producer.queueFor(req.channel, test, req.priority),
        id,
        await this.waitingChunks(id),
      );
      if (lost.length === 0) continue;
      if (!(await this.producer.enqueueChunks(req.channel, id, lost, req.priority, test))) break;
      requeued++;
      messages += lost.reduce((n, c) => n + c.messageIds.length, 0);
    }
    if (requeued)
      this.logger.warn(
        `requeued ${messages} waiting message(s) of ${requeued} request(s) whose jobs were no longer queued`,
      );
    return requeued;
  }

  /**
   * The request's accepted messages in id order, cut as the producer cut them, keeping in each
   * chunk only the messages still waiting (and only chunks that have any).
   */
  private async waitingChunks(requestId: string): Promise<Chunk[]> {
    return waitingChunks(await this.store.acceptedStates(requestId));
  }

  /**
   * The chunks whose job will not run again by itself; a finished job still kept under the
   * chunk's own id is removed so the id can be reused. A request that shared a job is looked up
   * through its pointer (shared-jobs.ts).
   */
  private async lostChunks(queue: Queue<DispatchJob>, requestId: string, chunks: Chunk[]): Promise<Chunk[]> {
    const lost: Chunk[] = [];
    for (const chunk of chunks) {
      const found = await jobOfChunk(queue, requestId, chunk.index, dispatchJobId(requestId, chunk.index));
      if (found && ALIVE.has(await found.job.getState())) continue;
      if (found?.own) await found.job.remove();
      lost.push(chunk);
    }
    return lost;
  }

  private async inLiveSharedJob(req: QueuedRequest): Promise<boolean> {
    const id = String(req.id);
    const queue = this.producer.queueFor(req.channel, Boolean(req.test_mode), req.priority);
    const found = await jobOfChunk(queue, id, 0, dispatchJobId(id, 0));
    return Boolean(found && !found.own && ALIVE.has(await found.job.getState()));
  }
}
