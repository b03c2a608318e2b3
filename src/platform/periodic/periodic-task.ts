import { RepeatLimiter, type WarnSink } from '../logging/repeat-limiter.js';

export interface PeriodicTaskOptions<T> {
  /** One run; `signal` is aborted at stop, for a run long enough to stop half-way. */
  run: (signal: AbortSignal) => T | Promise<T>;
  /** Time from the end of one run to the start of the next. */
  everyMs: number;
  /** Time from start() to the first run (default: everyMs). */
  firstAfterMs?: number;
  /**
   * When the task next has work (epoch ms), asked after each run: a time sooner than everyMs
   * away moves the next run to it, so work that falls due between two polls is not left waiting
   * for the second. A time already past (work another process holds) or an error leaves everyMs.
   */
  nextDueAt?: () => Promise<number | null>;
  /** Where a failed run is reported: `<failure>: <error message>`, or the line failure() makes. */
  logger: WarnSink;
  failure: string | ((err: Error) => string);
  /** A limiter shared with the owner's other warnings (default: one of the task's own). */
  warnings?: RepeatLimiter;
  /** The kind the limiter counts a failure under (default: the message with its numbers blanked). */
  cause?: string;
}

/**
 * A job repeated in the background of a process (a sweep, a scanner, a sampler): runs never
 * overlap (a call while one is under way joins it), the next starts everyMs after the last one
 * ended, a failure is a warning (repeats held back) and the next run goes on, and stop() waits
 * for the run under way. The timer never keeps the process alive.
 */
export class PeriodicTask<T = void> {
  private timer?: NodeJS.Timeout;
  private current?: Promise<T | undefined>;
  /** The question to nextDueAt under way after a run, which stop() waits for as for the run. */
  private asking?: Promise<number>;
  private started = false;
  private readonly abort = new AbortController();
  private readonly warnings: RepeatLimiter;

  constructor(private readonly options: PeriodicTaskOptions<T>) {
    this.warnings = options.warnings ?? new RepeatLimiter(options.logger);
  }

  /** Aborted once stop() is called. */
  get signal(): AbortSignal {
    return this.abort.signal;
  }

  /** Starts the timer; idempotent, and a no-op once stopped. */
  start(): void {
    if (this.started || this.abort.signal.aborted) return;
    this.started = true;
    this.schedule(this.options.firstAfterMs ?? this.options.everyMs);
  }

  /** Runs now, or joins the run under way; undefined when the run failed. */
  run(): Promise<T | undefined> {
    this.current ??= this.runOnce().finally(() => (this.current = undefined));
    return this.current;
  }

  /** Stops the timer, aborts the signal, and resolves once the run (and its nextDueAt) under way has ended. */
  async stop(): Promise<void> {
    this.abort.abort();
    clearTimeout(this.timer);
    await this.current;
    await this.asking;
    this.warnings.flush();
  }

  private schedule(delayMs: number): void {
    if (this.abort.signal.aborted) return;
    this.timer = setTimeout(
      () =>
        void this.run()
          .then(() => (this.asking = this.nextDelay()))
          .then((ms) => this.schedule(ms)),
      delayMs,
    );
    this.timer.unref();
  }

  /** everyMs, or less when nextDueAt names a time before then (one millisecond past it). */
  private async nextDelay(): Promise<number> {
    const { everyMs, nextDueAt } = this.options;
    if (!nextDueAt || this.abort.signal.aborted) return everyMs;
    const at = await nextDueAt().catch(() => null);
    if (at === null) return everyMs;
    const ms = at - Date.now() + 1;
    return ms > 0 && ms < everyMs ? ms : everyMs;
  }

  private async runOnce(): Promise<T | undefined> {
    try {
      return await this.options.run(this.abort.signal);
    } catch (err) {
      const { failure, cause } = this.options;
      const line =
        typeof failure === 'string' ? `${failure}: ${(err as Error).message}` : failure(err as Error);
      this.warnings.warn(line, cause);
      return undefined;
    }
  }
}
