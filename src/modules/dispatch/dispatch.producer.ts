import { InjectQueue } from '@nestjs/bull';
import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Queue } from 'bull';
import { DataSource } from 'typeorm';
import type { Channel } from '../messaging/channel.js';
import { DISPATCH_CHUNK, type DispatchJob } from './dispatch.constants.js';

const ENQUEUE_TIMEOUT_MS = 3000;

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`enqueue timed out after ${ms} ms`)), ms);
    p.then(
      (v) => (clearTimeout(t), resolve(v)),
      (e) => (clearTimeout(t), reject(e)),
    );
  });
}

interface Pending {
  sendRequestId: string;
  jobs: Array<{ name: string; data: DispatchJob; opts: object }>;
  resolve: (ok: boolean) => void;
}

/**
 * Puts stored messages on their channel's Bull queue in chunks. Requests that arrive in the
 * same tick share one Redis round trip (one addBulk per queue) and one UPDATE marking them
 * enqueued, so the cost per request falls as load rises. Job ids are derived from the
 * request and chunk, so enqueuing the same request twice (the recovery sweep racing a slow
 * send) adds nothing new while the first job is still there.
 */
@Injectable()
export class DispatchProducer {
  private readonly logger = new Logger(DispatchProducer.name);
  private readonly pending = new Map<Channel, Pending[]>();

  constructor(
    @InjectQueue('sms') private readonly sms: Queue<DispatchJob>,
    @InjectQueue('email') private readonly email: Queue<DispatchJob>,
    @InjectQueue('chat') private readonly chat: Queue<DispatchJob>,
    @InjectDataSource() private readonly ds: DataSource,
  ) {}

  queue(channel: Channel): Queue<DispatchJob> {
    return { sms: this.sms, email: this.email, chat: this.chat }[channel];
  }

  /**
   * Enqueues and marks the request enqueued. Returns false when Redis could not take the jobs:
   * the messages are safely stored and the recovery sweep will enqueue them later.
   */
  enqueue(channel: Channel, sendRequestId: string, messageIds: string[]): Promise<boolean> {
    const jobs: Pending['jobs'] = [];
    for (let i = 0; i < messageIds.length; i += DISPATCH_CHUNK) {
      jobs.push({
        name: 'send',
        data: { sendRequestId, messageIds: messageIds.slice(i, i + DISPATCH_CHUNK) },
        opts: {
          jobId: `${sendRequestId}-${i / DISPATCH_CHUNK}`,
          attempts: 8,
          backoff: { type: 'exponential', delay: 2000 },
          removeOnComplete: true,
          removeOnFail: 1000,
        },
      });
    }
    return new Promise<boolean>((resolve) => {
      let batch = this.pending.get(channel);
      if (!batch) {
        batch = [];
        this.pending.set(channel, batch);
        setImmediate(() => void this.flush(channel));
      }
      batch.push({ sendRequestId, jobs, resolve });
    });
  }

  private async flush(channel: Channel): Promise<void> {
    const batch = this.pending.get(channel) ?? [];
    this.pending.delete(channel);
    const jobs = batch.flatMap((p) => p.jobs);
    try {
      if (jobs.length) await withTimeout(this.queue(channel).addBulk(jobs), ENQUEUE_TIMEOUT_MS);
    } catch (err) {
      this.logger.warn(`${batch.length} request(s) not enqueued now (${(err as Error).message}); the sweep will retry`);
      for (const p of batch) p.resolve(false);
      return;
    }
    await this.ds
      .query('UPDATE send_requests SET enqueued_at = CURRENT_TIMESTAMP(3) WHERE id IN (?)', [batch.map((p) => p.sendRequestId)])
      .catch((err: Error) => this.logger.warn(`${batch.length} request(s) enqueued but not marked (${err.message})`));
    for (const p of batch) p.resolve(true);
  }
}
