import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { MicroBatcher } from '../../platform/batching/micro-batcher.js';
import { isUnavailableError } from '../../platform/errors/classify-error.js';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { withFields } from '../../platform/objects/with-fields.js';
import { PeriodicTask } from '../../platform/periodic/periodic-task.js';
import { within } from '../../platform/timing/within.js';
import { RequestLogStore, type RequestLogEntry } from './request-log.store.js';

/** A batch is written when this many rows wait, or every FLUSH_INTERVAL_MS, whichever comes first. */
export const FLUSH_ROWS = 500;
export const FLUSH_INTERVAL_MS = 500;
/** At most this many rows wait in memory; beyond it the oldest are dropped (and counted). */
export const MAX_BUFFERED_ROWS = 20_000;
const SHUTDOWN_FLUSH_MS = 5000;
const DROP_WARN_EVERY_MS = 10_000;

/**
 * Writes one request-log row per authenticated request to the log database, off the request
 * path: rows wait in a bounded batcher and go in multi-row INSERTs of up to FLUSH_ROWS, one
 * INSERT at a time. When the log database is slow or down the buffer fills and the oldest
 * rows are dropped, counted and warned about: a request is never slowed or failed for its log.
 * What waits is written at shutdown, after the HTTP drain and before the database closes.
 *
 * Refusals for the rate limit (429) are summarised: the first 429 of a key opens a window of
 * REQUEST_LOG_REFUSAL_WINDOW_SECONDS, the ones that follow only count, and the window is
 * written as one row (the first request's details, repeat_count = how many). A key hammering
 * past its limit costs one row per window, not one per request.
 */
@Injectable()
export class RequestLogWriter implements OnApplicationShutdown {
  private readonly logger = new Logger('RequestLogs');
  private readonly batcher = new MicroBatcher<RequestLogEntry>({
    delayMs: FLUSH_INTERVAL_MS,
    maxBatch: FLUSH_ROWS,
    maxWaiting: MAX_BUFFERED_ROWS,
    onDrop: (n) => this.drop(n, 'the log database is not keeping up'),
    flush: (rows) => this.write(rows),
  });
  private droppedTotal = 0;
  private droppedSinceWarn = 0;
  private lastDropWarn = 0;
  private failing = false;
  private stopped = false;
  /** Open refusal windows by key: the row that will be written, counting. */
  private readonly refusals = new Map<string, { row: RequestLogEntry; until: number }>();
  /** Closes the refusal windows that have ended; started by the first 429. */
  private readonly refusalCloser: PeriodicTask;
  private readonly refusalWindowMs: number;

  constructor(
    private readonly store: RequestLogStore,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.refusalWindowMs = config.requestLogRefusalWindowSeconds * 1000;
    this.refusalCloser = new PeriodicTask({
      run: () => this.closeRefusals(Date.now()),
      everyMs: Math.min(1000, this.refusalWindowMs),
      logger: this.logger,
      failure: 'refusal windows not closed',
    });
  }

  /** Rows dropped since start because the buffer was full (or a batch could not be stored). */
  get dropped(): number {
    return this.droppedTotal;
  }

  get buffered(): number {
    return this.batcher.waiting;
  }

  add(row: RequestLogEntry): void {
    if (row.status === 429 && !this.stopped) {
      const open = this.refusals.get(row.apiKeyId);
      if (open) {
        open.row.repeatCount = (open.row.repeatCount ?? 1) + 1;
        return;
      }
      this.refusals.set(row.apiKeyId, {
        row: withFields(row, { repeatCount: 1 }),
        until: Date.now() + this.refusalWindowMs,
      });
      this.refusalCloser.start();
      return;
    }
    this.enqueue(row);
  }

  /** Moves the refusal windows that have ended (all of them, with Infinity) to the write buffer. */
  private closeRefusals(now: number): void {
    for (const [keyId, open] of this.refusals) {
      if (open.until > now) continue;
      this.refusals.delete(keyId);
      this.enqueue(open.row);
    }
  }

  private enqueue(row: RequestLogEntry): void {
    this.batcher.add(row);
  }

  async onApplicationShutdown(): Promise<void> {
    this.closeRefusals(Infinity);
    this.stopped = true;
    await this.refusalCloser.stop();
    // Writes what waits, after a flush that may be under way.
    await within(this.batcher.close(), SHUTDOWN_FLUSH_MS);
    if (this.batcher.waiting > 0)
      this.logger.warn(`${this.batcher.waiting} request log row(s) not written at shutdown`);
  }

  /** One batch of up to FLUSH_ROWS rows; one at a time. Kept for a later round while the log database is away. */
  private async write(batch: RequestLogEntry[]): Promise<void> {
    try {
      await this.store.insert(batch);
      if (this.failing) this.logger.log('request logs are being written again');
      this.failing = false;
    } catch (err) {
      if (!isUnavailableError(err) || !this.store.open) {
        this.drop(batch.length, `a batch was refused: ${(err as Error).message}`);
        return;
      }
      // Back in front of the newer rows, within the bound (the oldest go first).
      this.batcher.requeue(batch);
      if (!this.failing)
        this.logger.warn(`log database unavailable (${(err as Error).message}); request logs are buffered`);
      this.failing = true;
    }
  }

  private drop(n: number, why: string): void {
    this.droppedTotal += n;
    this.droppedSinceWarn += n;
    const now = Date.now();
    if (now - this.lastDropWarn >= DROP_WARN_EVERY_MS) {
      this.logger.warn(
        `dropped ${this.droppedSinceWarn} request log row(s) (${this.droppedTotal} since start): ${why}`,
      );
      this.droppedSinceWarn = 0;
      this.lastDropWarn = now;
    }
  }
}
