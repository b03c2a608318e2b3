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
}

interface Entry<T, R> {
  item: T;
  resolve: (value: R) => void;
  reject: (err: unknown) => void;
}

/**
 * Collects items pushed in the same tick and hands them to one flush on the next `setImmediate`,
 * so work arriving together shares one round trip. Each item gets a promise that settles with
 * its own outcome from the flush; an error thrown by a flush reaches every item of its batch.
 */
export class MicroBatcher<T, R = void> {
  private queue: Array<Entry<T, R>> = [];
  private readonly maxBatch: number;
  /** A flush is scheduled (overlap) or the flush loop is under way (serial). */
  private busy = false;
  private unsettled = 0;
  private idle: Array<() => void> = [];

  constructor(private readonly options: MicroBatcherOptions<T, R>) {
    this.maxBatch = options.maxBatch ?? Infinity;
    if (!(this.maxBatch >= 1)) throw new RangeError('maxBatch must be at least 1');
  }

  /** Items waiting for a flush (not those being flushed). */
  get waiting(): number {
    return this.queue.length;
  }

  push(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.unsettled++;
      this.queue.push({ item, resolve, reject });
      if (this.busy) return;
      this.busy = true;
      setImmediate(() => void (this.options.overlap ? this.flushTick() : this.flushLoop()));
    });
  }

  /** Resolves once every item pushed so far (and any pushed while waiting) has settled. */
  drain(): Promise<void> {
    if (this.unsettled === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  private async flushLoop(): Promise<void> {
    while (this.queue.length) await this.flushBatch(this.queue.splice(0, this.maxBatch));
    this.busy = false;
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
