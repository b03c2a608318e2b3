import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { makePartitionsAhead } from '../../database/partitions/partition-maintenance.js';
import { PartitionStore } from '../../database/partitions/partition.store.js';
import { PeriodicTask } from '../../platform/periodic/periodic-task.js';
import { RetentionStore } from './retention.store.js';

/** Days ahead are made days before they are needed: an hourly look is plenty, and cheap. */
const EVERY_MS = 3_600_000;
/** The first look waits up to this long, so workers started together do not all ask at once. */
const FIRST_RUN_SPREAD_MS = 60_000;

/**
 * Keeps the message tables' partitions PARTITION_DAYS_AHEAD days ahead, in every worker
 * process, under the retention lock (so never beside a prune dropping partitions): whichever
 * worker gets the lock makes what is missing, the others skip the round. A round that fails
 * (the tables' metadata lock not granted in time) is tried again the next hour, and the
 * catch-all partition takes new rows meanwhile.
 */
@Injectable()
export class PartitionScheduler implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Partitions');
  private readonly task: PeriodicTask;

  constructor(
    private readonly partitions: PartitionStore,
    private readonly retention: RetentionStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.task = new PeriodicTask({
      run: async () => void (await this.runOnce()),
      everyMs: EVERY_MS,
      firstAfterMs: Math.random() * FIRST_RUN_SPREAD_MS,
      logger: this.logger,
      failure: (err) => `making partitions ahead failed: ${err.message}; next try in an hour`,
    });
  }

  onApplicationBootstrap(): void {
    this.task.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.task.stop();
  }

  /** One round; the partitions made, or undefined when another process held the lock. */
  async runOnce(nowMs = Date.now()): Promise<string[] | undefined> {
    const { partitionDaysAhead: aheadDays, partitionSpanDays: spanDays } = this.config.retention;
    const changes = await this.retention.exclusively(this.retention.lockName(), () =>
      makePartitionsAhead(this.partitions, { aheadDays, spanDays }, nowMs),
    );
    const added = changes?.flatMap((c) => c.added.map((name) => `${c.table}.${name}`));
    if (added?.length) this.logger.log(`made partitions ${added.join(', ')}`);
    return added;
  }
}
