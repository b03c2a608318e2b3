import { InjectQueue } from '@nestjs/bull';
import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Queue } from 'bull';
import { DataSource } from 'typeorm';
import { RepeatLimiter } from '../../common/logging/repeat-limiter.js';
import { NOTIFICATION_DB } from '../../database/data-sources.js';
import { CALLBACK_QUEUE } from '../dispatch/dispatch.constants.js';
import type { CallbackJob } from '../messaging/message-state.service.js';

const BATCH = 500;
/** The state path does not wait longer than this for Redis: past it, the events are kept instead. */
const QUEUE_TIMEOUT_MS = 800;
/** ioredis states in which a command would only wait for a reconnection. */
const DOWN = new Set(['reconnecting', 'close', 'end']);

/** The options every callback job is queued with: 10 attempts on the jittered schedule. */
export function callbackJobOptions(eventId: string) {
  return { jobId: eventId, attempts: 10, backoff: { type: 'jittered' }, removeOnComplete: true, removeOnFail: 5000 };
}

/**
 * Callback events whose state change committed while Redis was away are kept in the
 * notification database instead of being dropped, and queued by the recovery sweep once
 * Redis answers (under their event id, so queuing one twice adds nothing).
 */
@Injectable()
export class CallbackOutbox {
  private readonly logger = new Logger(CallbackOutbox.name);
  private readonly warnings = new RepeatLimiter(this.logger);

  constructor(
    @InjectDataSource(NOTIFICATION_DB) private readonly notifications: DataSource,
    @InjectQueue(CALLBACK_QUEUE) private readonly callbacks: Queue<CallbackJob>,
  ) {}

  /** Queues the events, or keeps them when Redis is down or does not answer in time. */
  async queue(jobs: CallbackJob[]): Promise<void> {
    try {
      if (DOWN.has(this.callbacks.client.status)) throw new Error(`Redis connection ${this.callbacks.client.status}`);
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer from Redis within ${QUEUE_TIMEOUT_MS} ms`)), QUEUE_TIMEOUT_MS);
      });
      try {
        await Promise.race([this.callbacks.addBulk(jobs.map((data) => ({ name: 'deliver', data, opts: callbackJobOptions(data.eventId) }))), timeout]);
      } finally {
        clearTimeout(timer);
      }
    } catch (err) {
      await this.keep(jobs, err as Error);
    }
  }

  /** Keeps events that could not be queued; if MySQL refuses too, says how many are lost. */
  private async keep(jobs: CallbackJob[], cause: Error): Promise<void> {
    try {
      await this.notifications.query(
        `INSERT IGNORE INTO callback_outbox (event_id, job) VALUES ${jobs.map(() => '(?, ?)').join(',')}`,
        jobs.flatMap((j) => [j.eventId, JSON.stringify(j)]),
      );
      this.warnings.warn(`${jobs.length} callback(s) not queued (${cause.message}); kept to queue later`);
    } catch (err) {
      this.warnings.warn(`${jobs.length} callback(s) lost: not queued (${cause.message}) nor kept (${(err as Error).message})`);
    }
  }

  /** Queues kept events; returns how many. */
  async flush(): Promise<number> {
    if (DOWN.has(this.callbacks.client.status)) return 0;
    let queued = 0;
    for (;;) {
      const rows = (await this.notifications.query('SELECT event_id, job FROM callback_outbox ORDER BY created_at LIMIT ?', [BATCH])) as Array<{
        event_id: string;
        job: string;
      }>;
      if (rows.length === 0) break;
      const jobs = rows.map((r) => JSON.parse(r.job) as CallbackJob);
      await this.callbacks.addBulk(jobs.map((data) => ({ name: 'deliver', data, opts: callbackJobOptions(data.eventId) })));
      await this.notifications.query('DELETE FROM callback_outbox WHERE event_id IN (?)', [rows.map((r) => r.event_id)]);
      queued += rows.length;
      if (rows.length < BATCH) break;
    }
    if (queued) this.logger.log(`queued ${queued} callback(s) kept while Redis was away`);
    return queued;
  }
}
