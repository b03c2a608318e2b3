import { randomUUID } from 'node:crypto';
import { InjectQueue } from '@nestjs/bull';
import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import type { JobOptions, Queue } from 'bull';
import { MicroBatcher } from '../../platform/batching/micro-batcher.js';
import { RepeatLimiter } from '../../platform/logging/repeat-limiter.js';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import type { CommittedChange, StateChangeListener } from '../delivery/lifecycle/state-change.listener.js';
import { CALLBACK_QUEUE, callbackJobFor, callbackJobOptions, type CallbackJob } from './callback-job.js';
import { CallbackStore } from './callback.store.js';

const BATCH = 500;
/** The state path does not wait longer than this for Redis: past it, the events are queued later. */
const QUEUE_TIMEOUT_MS = 800;
/** A kept event not yet queued is left this long to the call that is queuing it, then the sweep takes it. */
export const UNQUEUED_GRACE_MS = 2000;
/** Longer than any event's retry schedule: a row this old is a leftover (its deletion failed). */
export const FORGET_AFTER_HOURS = 6;
const DONE_FLUSH_MS = 200;
/** ioredis states in which a command would only wait for a reconnection. */
const DOWN = new Set(['reconnecting', 'close', 'end']);

/**
 * Redis holds the callback queue; MySQL keeps the list of events not yet done with, so that no
 * callback is lost with Redis:
 * - an event whose state change committed while Redis was away is queued by the sweep once it
 *   answers;
 * - when Redis comes back without its data (a restart without persistence, a flush), every
 *   event not done with is queued again. Such a loss is noticed by a marker key that vanishes
 *   with the data: the worker that sets it again requeues.
 * An event is done with when delivered, refused, or out of attempts. Requeued events keep their
 * event id, so a receiver that got one already can tell the repeat. A process without a queue
 * (the admin CLI) only keeps its events (`CallbackStore.keep`): a worker's sweep queues them.
 */
@Injectable()
export class CallbackOutbox implements StateChangeListener, OnApplicationShutdown {
  private readonly logger = new Logger(CallbackOutbox.name);
  private readonly warnings = new RepeatLimiter(this.logger);
  /** Events done with, deleted in one statement per DONE_FLUSH_MS. */
  private readonly done = new MicroBatcher<string>({
    delayMs: DONE_FLUSH_MS,
    flush: (ids) => this.clear(ids),
  });
  private epoch?: string;
  /** Told when the queue has lost its data, after the kept events go back on it. */
  private readonly lossListeners: Array<() => Promise<void>> = [];

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly store: CallbackStore,
    @InjectQueue(CALLBACK_QUEUE) private readonly callbacks: Queue<CallbackJob>,
  ) {}

  /** A callback event per committed change whose request named a callback_url. */
  async committed(changes: CommittedChange[]): Promise<void> {
    const jobs = changes.map(callbackJobFor).filter((j): j is CallbackJob => j !== null);
    // Kept in MySQL until delivered, so neither Redis being away nor Redis losing its data loses it.
    if (jobs.length) await this.queue(jobs);
  }

  /** Keeps the events, then queues them (or leaves them to the sweep when Redis is down or slow). */
  async queue(jobs: CallbackJob[]): Promise<void> {
    await this.keepAndAdd(jobs.map((data) => ({ data, opts: callbackJobOptions(data.eventId) })));
  }

  /**
   * Queues jobs whose record is elsewhere (CallbackJob.loggedOnly: a webhook event's log rows),
   * without an outbox row. When Redis is down or slow they are kept on the outbox instead, as an
   * event not yet queued, for the sweep to queue in a moment; when that fails too, the record's
   * own sweep queues them.
   */
  async queueLogged(jobs: CallbackJob[]): Promise<void> {
    if (jobs.length === 0) return;
    try {
      await this.add(jobs.map((data) => ({ data, opts: callbackJobOptions(data.eventId) })));
    } catch (err) {
      this.warnings.warn(
        `${jobs.length} callback(s) not queued (${(err as Error).message}); kept to queue later`,
      );
      await this.store
        .keep(jobs.map(({ loggedOnly: _, ...job }) => job))
        .catch((e: Error) =>
          this.warnings.warn(`${jobs.length} callback(s) not kept either (${e.message}); left to the sweep`),
        );
    }
  }

  /** `listener` runs when the queue is found to have lost its data (by the sweep that finds it). */
  onQueueLost(listener: () => Promise<void>): void {
    this.lossListeners.push(listener);
  }

  /**
   * As `queue`, for events that already had attempts (`priorAttempts`), each due `delayMs` from
   * now: they keep the attempts left and the backoff schedule where it was.
   */
  async queueLater(
    events: Array<{ job: CallbackJob & { priorAttempts?: number }; delayMs: number }>,
  ): Promise<void> {
    await this.keepAndAdd(
      events.map(({ job, delayMs }) => {
        const prior = job.priorAttempts ?? 0;
        const opts = callbackJobOptions(job.eventId);
        return {
          data: job,
          opts: {
            ...opts,
            delay: delayMs,
            attempts: Math.max(1, opts.attempts - prior),
            backoff: { type: 'jittered', options: { offset: prior } },
          },
        };
      }),
    );
  }

  private async keepAndAdd(entries: Array<{ data: CallbackJob; opts: JobOptions }>): Promise<void> {
    const jobs = entries.map((e) => e.data);
    const ids = jobs.map((j) => j.eventId);
    let kept = true;
    await this.store.keep(jobs).catch((err: Error) => {
      kept = false;
      this.warnings.warn(
        `${jobs.length} callback(s) not kept in the outbox (${err.message}); queued without a copy`,
      );
    });
    try {
      await this.add(entries);
    } catch (err) {
      this.warnings.warn(
        kept
          ? `${jobs.length} callback(s) not queued (${(err as Error).message}); kept to queue later`
          : `${jobs.length} callback(s) lost: not queued (${(err as Error).message}) nor kept`,
      );
      return;
    }
    if (kept) await this.markQueued(ids);
  }

  /** The event needs no more attempts; its row goes (in a batch, shortly). */
  finished(eventId: string): void {
    this.done.add(eventId);
  }

  /** Run by the recovery sweep: notices a Redis that lost its data, then queues what is kept unqueued. */
  async recover(): Promise<number> {
    if (DOWN.has(this.callbacks.client.status)) return 0;
    await this.checkEpoch();
    let queued = 0;
    for (;;) {
      const rows = await this.store.unqueued(UNQUEUED_GRACE_MS, BATCH);
      if (rows.length === 0) break;
      await this.add(
        rows.map((r) => {
          const data = JSON.parse(r.job) as CallbackJob;
          return { data, opts: callbackJobOptions(data.eventId) };
        }),
      );
      await this.markQueued(rows.map((r) => r.event_id));
      queued += rows.length;
      if (rows.length < BATCH) break;
    }
    await this.store.forgetOlderThan(FORGET_AFTER_HOURS);
    if (queued) this.logger.log(`queued ${queued} callback event(s) that were not in the queue`);
    return queued;
  }

  async onApplicationShutdown(): Promise<void> {
    await this.done.close();
    this.warnings.flush();
  }

  private async add(jobs: Array<{ data: CallbackJob; opts: JobOptions }>): Promise<void> {
    if (DOWN.has(this.callbacks.client.status))
      throw new Error(`Redis connection ${this.callbacks.client.status}`);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`no answer from Redis within ${QUEUE_TIMEOUT_MS} ms`)),
        QUEUE_TIMEOUT_MS,
      );
    });
    try {
      await Promise.race([
        this.callbacks.addBulk(jobs.map(({ data, opts }) => ({ name: 'deliver', data, opts }))),
        timeout,
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  private async markQueued(ids: string[]): Promise<void> {
    // If this fails the sweep queues them again later: same job id, so nothing new while the job exists.
    await this.store
      .markQueued(ids)
      .catch((err: Error) =>
        this.warnings.warn(`${ids.length} queued callback(s) not marked (${err.message})`),
      );
  }

  private async clear(ids: string[]): Promise<void> {
    try {
      await this.store.remove(ids);
    } catch (err) {
      // A row left behind at worst sends its event once more after a Redis loss, or ages out.
      this.warnings.warn(
        `${ids.length} finished callback(s) not cleared from the outbox (${(err as Error).message})`,
      );
    }
  }

  /**
   * The marker lives in Redis beside the queue. Missing means Redis has lost its data since
   * the last look (or never had it): whoever sets it again puts every kept event back.
   */
  private async checkEpoch(): Promise<void> {
    const key = `${this.config.queuePrefix}:${CALLBACK_QUEUE}:outbox-epoch`;
    const client = this.callbacks.client;
    const current = await client.get(key);
    if (current) {
      this.epoch = current;
      return;
    }
    const mine = randomUUID();
    if ((await client.set(key, mine, 'NX')) !== 'OK') return;
    const hadOne = this.epoch !== undefined;
    this.epoch = mine;
    try {
      const requeued = await this.store.unmarkAllQueued();
      if (hadOne || requeued)
        this.logger.warn(
          `the callback queue lost its data; ${requeued} callback event(s) not yet delivered go back on it`,
        );
      for (const listener of this.lossListeners) await listener();
    } catch (err) {
      // The marker goes again, so the next sweep puts everything back once more: left set, the
      // events queued on the lost data would stay marked queued, and never be queued again.
      await client.del(key);
      throw err;
    }
  }
}
