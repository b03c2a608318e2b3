import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { PeriodicTask } from '../../platform/periodic/periodic-task.js';
import { RetentionService } from './retention.service.js';

/**
 * The first run waits up to this long (or one period, if shorter), so workers started together
 * do not all ask for the lock at once.
 */
const FIRST_RUN_SPREAD_MS = 60_000;

/**
 * Runs a prune (with its archive, when ARCHIVE_DIR is set) every RETENTION_SCHEDULE in each
 * worker process; the retention lock lets one run at a time across all of them, and the others
 * skip that round. Off by default. It runs beside the dispatch, never inside a job: a prune's
 * batches share only MySQL with it. Shutdown stops a running prune between two batches.
 */
@Injectable()
export class RetentionScheduler implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Retention');
  private readonly task?: PeriodicTask;

  constructor(
    private readonly retention: RetentionService,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    const everyMs = config.retention.scheduleMs;
    if (everyMs === undefined) return;
    this.task = new PeriodicTask({
      run: (signal) => this.runOnce(signal),
      everyMs,
      firstAfterMs: Math.random() * Math.min(FIRST_RUN_SPREAD_MS, everyMs),
      logger: this.logger,
      failure: (err) => `prune failed: ${err.message}; next try in one period`,
    });
  }

  onApplicationBootstrap(): void {
    this.task?.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.task?.stop();
  }

  private async runOnce(signal: AbortSignal): Promise<void> {
    const r = await this.retention.prune({ signal });
    if (!r) return this.logger.log('another process is pruning; this round is skipped');
    const total = Object.values(r.removed).reduce((a, b) => a + b, 0);
    this.logger.log(
      `removed ${r.removed.messages} final message(s) last changed before ${r.before.toISOString()} ` +
        `(${total} rows in all${r.archiveDir ? `, ${r.archived.rows} archived` : ''}` +
        `${r.partitions.dropped.length ? `, ${r.partitions.dropped.length} day partition(s) dropped` : ''}) in ${r.seconds.toFixed(1)} s`,
    );
  }
}
