import { InjectQueue } from '@nestjs/bull';
import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import type { Queue } from 'bull';
import { MessageStore } from '../../messages/message.store.js';
import type { Channel } from '../../messages/channel.js';
import { MicroBatcher, type ItemOutcome } from '../../../platform/batching/micro-batcher.js';
import { RepeatLimiter } from '../../../platform/logging/repeat-limiter.js';
import { DISPATCH_CHUNK, PRIORITY_QUEUE, TEST_QUEUE, type DispatchJob } from './dispatch.constants.js';
import { shareJobs, shareKey, writePointers, type PendingJobs } from './shared-jobs.js';

// Sending enters delivery through this file (and the router) alone; the chunk size its estimates
// need comes through here too.
export { DISPATCH_CHUNK } from './dispatch.constants.js';
import {
  DISPATCH_ATTEMPTS,
  DISPATCH_BACKOFF_MS,
  DISPATCH_COMPLETED_KEPT,
  DISPATCH_FAILED_KEPT,
} from '../retry-policy.js';

/**
 * A send is answered within about this long even when Redis hangs (a dropped connection is
 * noticed at once and not waited for at all): its messages are stored, and the sweep queues
 * them if the jobs did not get through.
 */
const ENQUEUE_TIMEOUT_MS = 800;

/**
 * Requests whose jobs reached Redis are marked enqueued in MySQL within about this long, many
 * per UPDATE, and no answer waits for it. Until the mark lands, the recovery sweep may take such
 * a request for one never queued (only with a SWEEP_MIN_AGE_MS below this) and queue it again
 * under the same job ids: nothing new while its jobs are there, nothing sent twice after (only
 * ACKNOWLEDGED messages are handed over).
 */
export const MARK_ENQUEUED_MS = 20;
/** Request ids per UPDATE. */
const MARK_CHUNK = 1000;

/** Job `index` of a request holds its accepted messages [index × DISPATCH_CHUNK, (index + 1) × DISPATCH_CHUNK) in id order. */
export interface Chunk {
  index: number;
  messageIds: string[];
}

export function dispatchJobId(sendRequestId: string, index: number): string {
  return `${sendRequestId}-${index}`;
}

/**
 * A request's accepted messages in id order, cut as the producer cuts them, keeping in each chunk
 * only those still waiting: the job ids then match the ones the recovery sweep looks for.
 */
export function waitingChunks(rows: Array<{ id: string; status: string }>): Chunk[] {
  const chunks: Chunk[] = [];
  rows.forEach((r, i) => {
    if (r.status !== 'ACKNOWLEDGED') return;
    const index = Math.floor(i / DISPATCH_CHUNK);
    if (chunks.at(-1)?.index !== index) chunks.push({ index, messageIds: [] });
    chunks.at(-1)!.messageIds.push(String(r.id));
  });
  return chunks;
}

/** Bull's highest priority: such jobs go ahead of every waiting job without one. */
const HIGH_PRIORITY = 1;

export function dispatchJobOptions(
  sendRequestId: string,
  index: number,
  priority: 'high' | 'normal' = 'normal',
) {
  return {
    jobId: dispatchJobId(sendRequestId, index),
    ...(priority === 'high' ? { priority: HIGH_PRIORITY } : {}),
    attempts: DISPATCH_ATTEMPTS,
    backoff: { type: 'exponential', delay: DISPATCH_BACKOFF_MS },
    removeOnComplete: DISPATCH_COMPLETED_KEPT,
    removeOnFail: DISPATCH_FAILED_KEPT,
  };
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`enqueue timed out after ${ms} ms`)), ms);
    p.then(
      (v) => (clearTimeout(t), resolve(v)),
      (e) => (clearTimeout(t), reject(e)),
    );
  });
}

/** ioredis states in which a command would only wait for a reconnection. */
const DOWN = new Set(['reconnecting', 'close', 'end']);

/** Ids are decimal strings without leading zeros: the longer is larger, else compare as text. */
export function byNumericId(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}

/**
 * Puts stored messages on their channel's Bull queue in chunks. Requests that arrive in the
 * same tick share one Redis round trip (one addBulk per queue), and those queued within
 * MARK_ENQUEUED_MS share one UPDATE marking them enqueued, so the cost per request falls as
 * load rises; their single-message requests share jobs (shared-jobs.ts). Job ids are derived
 * from the request and chunk, so enqueuing the same request twice (the recovery sweep racing a
 * slow send) adds nothing new while the first job is there.
 */
@Injectable()
export class DispatchProducer implements OnApplicationShutdown {
  private readonly logger = new Logger(DispatchProducer.name);
  private readonly warnings = new RepeatLimiter(this.logger);
  /**
   * One per queue. A tick's requests go out while an earlier addBulk may still be waiting on
   * Redis: each send is answered within ENQUEUE_TIMEOUT_MS of its own tick, not behind others.
   */
  private readonly batchers = new Map<Queue<DispatchJob>, MicroBatcher<PendingJobs, boolean>>();
  /** Requests whose jobs are in Redis, to be marked enqueued (written at shutdown too). */
  private readonly marks = new MicroBatcher<string>({
    delayMs: MARK_ENQUEUED_MS,
    maxBatch: MARK_CHUNK,
    flush: (ids) => this.mark(ids),
  });

  constructor(
    @InjectQueue('sms') private readonly sms: Queue<DispatchJob>,
    @InjectQueue('email') private readonly email: Queue<DispatchJob>,
    @InjectQueue('chat') private readonly chat: Queue<DispatchJob>,
    @InjectQueue(TEST_QUEUE) private readonly test: Queue<DispatchJob>,
    @InjectQueue(PRIORITY_QUEUE) private readonly priority: Queue<DispatchJob>,
    private readonly store: MessageStore,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    await this.marks.close();
  }

  queue(channel: Channel): Queue<DispatchJob> {
    return { sms: this.sms, email: this.email, chat: this.chat }[channel];
  }

  /** The queue of test keys' requests, every channel. */
  testQueue(): Queue<DispatchJob> {
    return this.test;
  }

  /** The queue of live high-priority requests, every channel. */
  priorityQueue(): Queue<DispatchJob> {
    return this.priority;
  }

  /** Every dispatch queue: the channels', the priority queue and the test queue. */
  dispatchQueues(): Array<Queue<DispatchJob>> {
    return [this.sms, this.email, this.chat, this.priority, this.test];
  }

  /**
   * Where a request's jobs go: the test queue for a test key's request, the priority queue for a
   * live high-priority one, else its channel's queue.
   */
  queueFor(channel: Channel, test: boolean, priority: 'high' | 'normal' = 'normal'): Queue<DispatchJob> {
    if (test) return this.test;
    return priority === 'high' ? this.priority : this.queue(channel);
  }

  /**
   * Enqueues the request (and has it marked enqueued shortly after). Returns false when Redis
   * could not take the jobs: the messages are safely stored and the recovery sweep will enqueue
   * them later.
   */
  enqueue(
    channel: Channel,
    sendRequestId: string,
    messageIds: string[],
    priority: 'high' | 'normal' = 'normal',
    test = false,
  ): Promise<boolean> {
    // Ids are generated in increasing order, so this is the order the sweep reads them back in.
    const sorted = [...messageIds].sort(byNumericId);
    const chunks: Chunk[] = [];
    for (let i = 0; i < sorted.length; i += DISPATCH_CHUNK)
      chunks.push({ index: i / DISPATCH_CHUNK, messageIds: sorted.slice(i, i + DISPATCH_CHUNK) });
    // A single message may share a job with the others of its tick (shared-jobs.ts).
    const share = sorted.length === 1 ? shareKey(channel, priority) : undefined;
    return this.enqueueChunks(channel, sendRequestId, chunks, priority, test, share);
  }

  /**
   * Enqueues the given chunks of a request under their fixed job ids and marks the request
   * enqueued, on the queue `queueFor` names. With `share` (a single message), the message may go
   * in a job shared with the other single messages of the tick under the same key (shared-jobs.ts).
   */
  enqueueChunks(
    channel: Channel,
    sendRequestId: string,
    chunks: Chunk[],
    priority: 'high' | 'normal' = 'normal',
    test = false,
    share?: string,
  ): Promise<boolean> {
    const queue = this.queueFor(channel, test, priority);
    // The test and priority queues serve every channel: their jobs say which.
    const mixed = queue !== this.queue(channel);
    // Only the test queue holds both priorities, for Bull to order. The priority queue holds high
    // ones alone, in arrival order: a Bull priority there would only make each add and take dearer
    // (a sorted set beside the list, and an insert that walks the list).
    const ordered = test ? priority : 'normal';
    const jobs: PendingJobs['jobs'] = chunks.map((c) => ({
      name: 'send',
      data: mixed
        ? { sendRequestId, messageIds: c.messageIds, channel }
        : { sendRequestId, messageIds: c.messageIds },
      opts: dispatchJobOptions(sendRequestId, c.index, ordered),
    }));
    let batcher = this.batchers.get(queue);
    if (!batcher) {
      batcher = new MicroBatcher<PendingJobs, boolean>({
        overlap: true,
        flush: (batch) => this.flush(queue, batch),
      });
      this.batchers.set(queue, batcher);
    }
    return batcher.push({ sendRequestId, jobs, ...(share ? { shareKey: share } : {}) });
  }

  /** Never throws: each request is answered true (enqueued) or false (left to the sweep). */
  private async flush(queue: Queue<DispatchJob>, batch: PendingJobs[]): Promise<ItemOutcome<boolean>[]> {
    const answer = (ok: boolean) => batch.map(() => ({ status: 'fulfilled' as const, value: ok }));
    const { jobs, pointers } = shareJobs(batch);
    try {
      // While the connection is down, commands would wait in ioredis' offline queue: answer now instead.
      if (DOWN.has(queue.client.status)) throw new Error(`Redis connection ${queue.client.status}`);
      // Pointers first: a shared job is never in Redis without them (a pointer without its job is a lost job).
      const added = writePointers(queue, pointers).then(() =>
        jobs.length ? queue.addBulk(jobs) : undefined,
      );
      await withTimeout(added, ENQUEUE_TIMEOUT_MS);
    } catch (err) {
      this.warnings.warn(
        `${batch.length} request(s) not enqueued now (${(err as Error).message}); the sweep will retry`,
      );
      return answer(false);
    }
    for (const p of batch) this.marks.add(p.sendRequestId);
    return answer(true);
  }

  /** Never throws: requests left unmarked are queued again by the sweep, adding nothing new. */
  private async mark(ids: string[]): Promise<void> {
    await this.store
      .markEnqueued(ids)
      .catch((err: Error) =>
        this.warnings.warn(`${ids.length} request(s) enqueued but not marked (${err.message})`),
      );
  }
}
