import { Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { RepeatLimiter } from '../logging/repeat-limiter.js';
import { PeriodicTask, type PeriodicTaskOptions } from './periodic-task.js';

/**
 * A provider that is one PeriodicTask: started when the application has booted, stopped (the
 * round under way awaited) at shutdown, and run on demand by `runNow`. The subclass says what a
 * round does (`round`) and how often (the options it hands to super); its logger and repeat
 * limiter are the ones named here, shared with the task's failure reports.
 */
export abstract class PeriodicJob<T> implements OnApplicationBootstrap, OnApplicationShutdown {
  protected readonly logger: Logger;
  protected readonly warnings: RepeatLimiter;
  private readonly task: PeriodicTask<T>;

  constructor(name: string, options: Omit<PeriodicTaskOptions<T>, 'run' | 'logger' | 'warnings'>) {
    this.logger = new Logger(name);
    this.warnings = new RepeatLimiter(this.logger);
    this.task = new PeriodicTask({
      ...options,
      run: (stop) => this.round(stop),
      logger: this.logger,
      warnings: this.warnings,
    });
  }

  /** One round; `stop` is aborted at shutdown, for a round long enough to stop half-way. */
  protected abstract round(stop: AbortSignal): Promise<T>;

  onApplicationBootstrap(): void {
    this.task.start();
  }

  onApplicationShutdown(): Promise<void> {
    return this.task.stop();
  }

  /** Runs a round now, or joins the one under way; undefined when it failed (and was reported). */
  protected runNow(): Promise<T | undefined> {
    return this.task.run();
  }
}
