/** What a flush may answer for each item, in the items' order (the shape `Promise.allSettled` returns). */
export type ItemOutcome<R> = PromiseSettledResult<R>;

export interface MicroBatcherOptions<T, R> {
  /**
   * Handles one batch. Returns one outcome per item, in order, or nothing when every item simply
   * succeeds (its promise then resolves with undefined). Throwing rejects every item of the batch.
   */
  flush: (items: T[]) => Promise<ItemOutcome<R>[] | void>;
  /** Largest batch handed to `flush`; what is left over goes in the next one. */
  maxBatch?: number;
  /**
   * By default one flush runs at a time and items that arrive meanwhile wait for the next. With
   * `overlap`, each tick's items are flushed at once even while an earlier flush is under way.
   */
  overlap?: boolean;
  /**
   * Collect for this long after the first waiting item instead of until the next tick (the
   * timer does not keep the process alive); a full batch (`maxBatch`) goes at once. For work
   * that is cheaper late and together than soon and apart: log rows, "last used" times.
   */
  delayMs?: number;
  /** At most this many items wait; an item added past it pushes out the oldest, which `onDrop` is told of. */
  maxWaiting?: number;
  onDrop?: (count: number) => void;
}

interface Entry<T, R> {
  item: T;
  resolve: (value: R) => void;
  reject: (err: unknown) => void;
}

const ignore = () => undefined;

/**
 * Collects items and hands them to one flush, so work arriving together shares one round trip:
 * items pushed in the same tick go on the next `setImmediate`, or, with `delayMs`, those of the
 * next `delayMs`. Each pushed item gets a promise that settles with its own outcome from the
 * flush; an error thrown by a flush reaches every item of its batch. `add` is push without the
 * promise, for callers that never wait.
 */
export class MicroBatcher<T, R = void> {
  private queue: Array<Entry<T, R>> = [];
  private readonly maxBatch: number;
  private readonly maxWaiting: number;
  /** A flush is scheduled (overlap) or the flush loop is under way (serial). */
  private busy = false;
  private timer?: NodeJS.Timeout;
  /** Set by requeue: the loop stops and what was put back waits for the next round. */
  private holdOff = false;
  private closed = false;
  private unsettled = 0;
  private idle: Array<() => void> = [];

  constructor(private readonly options: MicroBatcherOptions<T, R>) {
    this.maxBatch = options.maxBatch ?? Infinity;
    this.maxWaiting = options.maxWaiting ?? Infinity;
    if (!(this.maxBatch >= 1)) throw new RangeError('maxBatch must be at least 1');
    if (!(this.maxWaiting >= 1)) throw new RangeError('maxWaiting must be at least 1');
  }

  /** Items waiting for a flush (not those being flushed). */
  get waiting(): number {
    return this.queue.length;
  }

  push(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => this.enqueue({ item, resolve, reject }));
  }

  /** Like push, for a caller that does not wait for the outcome (a failure is the flush's to report). */
  add(item: T): void {
    this.enqueue({ item, resolve: ignore, reject: ignore });
  }

  /**
   * Puts items back in front of those waiting, for the next round (not this one): for a flush
   * that could not store them and wants them tried again later (meant for `delayMs`: without
   * it the next round is the next tick). The `maxWaiting` bound holds,
   * dropping the oldest.
   */
  requeue(items: T[]): void {
    if (items.length === 0) return;
    this.unsettled += items.length;
    this.queue.unshift(...items.map((item) => ({ item, resolve: ignore, reject: ignore })));
    this.trim();
    this.holdOff = true;
    if (!this.busy) this.schedule();
  }

  /** Resolves once every item pushed so far (and any pushed while waiting) has settled. */
  drain(): Promise<void> {
    if (this.unsettled === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  /**
   * Flushes what waits now, without waiting for the delay, and resolves when it is done; no
   * timer is started afterwards (for shutdown). Items requeued meanwhile stay waiting.
   */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    while (this.busy) await new Promise((r) => setImmediate(r));
    this.holdOff = false;
    this.busy = true;
    await this.flushLoop();
  }

  private enqueue(entry: Entry<T, R>): void {
    this.unsettled++;
    this.queue.push(entry);
    this.trim();
    if (this.busy) return;
    if (this.options.delayMs !== undefined && this.queue.length >= this.maxBatch && !this.holdOff) {
      clearTimeout(this.timer);
      this.timer = undefined;
      this.busy = true;
      void this.flushLoop();
      return;
    }
    this.schedule();
  }

  private schedule(): void {
    if (this.closed || this.timer) return;
    if (this.options.delayMs === undefined) {
      this.busy = true;
      setImmediate(() => {
        this.holdOff = false;
        void (this.options.overlap ? this.flushTick() : this.flushLoop());
      });
      return;
    }
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.holdOff = false;
      this.busy = true;
      void this.flushLoop();
    }, this.options.delayMs);
    this.timer.unref();
  }

  private trim(): void {
    const over = this.queue.length - this.maxWaiting;
    if (over <= 0) return;
    for (const e of this.queue.splice(0, over)) e.reject(new Error('dropped: too many items waiting'));
    this.settled(over);
    this.options.onDrop?.(over);
  }

  private async flushLoop(): Promise<void> {
    await this.flushWaiting();
    this.busy = false;
    // With a delay, what arrived during the last flush (or was put back) waits for its own round.
    if (this.queue.length) this.schedule();
  }

  /** Flushes what waits, a batch at a time, until nothing does (or a requeue holds off). */
  private async flushWaiting(): Promise<void> {
    while (this.queue.length && !this.holdOff) await this.flushBatch(this.queue.splice(0, this.maxBatch));
  }

  private flushTick(): void {
    this.busy = false;
    while (this.queue.length) void this.flushBatch(this.queue.splice(0, this.maxBatch));
  }

  private async flushBatch(batch: Array<Entry<T, R>>): Promise<void> {
    try {
      const outcomes = await this.options.flush(batch.map((e) => e.item));
      batch.forEach((e, i) => {
        const o: ItemOutcome<R> | undefined = outcomes
          ? outcomes[i]
          : { status: 'fulfilled', value: undefined as R };
        if (!o) e.reject(new Error(`the batch flush answered ${outcomes?.length} of ${batch.length} items`));
        else if (o.status === 'fulfilled') e.resolve(o.value);
        else e.reject(o.reason);
      });
    } catch (err) {
      for (const e of batch) e.reject(err);
    }
    this.settled(batch.length);
  }

  private settled(n: number): void {
    this.unsettled -= n;
    if (this.unsettled > 0) return;
    const waiters = this.idle;
    this.idle = [];
    for (const w of waiters) w();
  }
}
