import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { CATCH_ALL, firstIdOf } from '../../database/partitions/day-partitions.js';
import { PartitionStore } from '../../database/partitions/partition.store.js';
import { RequestLogStore } from './request-log.store.js';

/** Rows per DELETE: small enough that no statement holds locks for long on a busy log table. */
export const PRUNE_CHUNK = 5000;

export interface LogPruneResult {
  deleted: number;
  cutoff: Date;
  olderThanDays: number;
  /** Day partitions dropped whole (their rows are counted in `deleted`). */
  partitionsDropped: string[];
}

/**
 * Deletes request logs older than the retention period (REQUEST_LOG_RETENTION_DAYS, default
 * 30). On a partitioned table every day partition that ends at or before the cutoff is dropped
 * whole first (its rows counted, then one ALTER: no row is deleted one by one); the rows left
 * before the cutoff (the cutoff's own day, or a table not partitioned) are deleted oldest
 * first, in chunks along the created_at index. Run by `logs prune` (e.g. from cron), one
 * process at a time (the log database's prune lock).
 */
@Injectable()
export class RequestLogPruner {
  constructor(
    private readonly store: RequestLogStore,
    private readonly partitions: PartitionStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** One prune under the log database's prune lock; undefined when another process is pruning. */
  prune(
    olderThanDays = this.config.requestLogRetentionDays,
    nowMs = Date.now(),
  ): Promise<LogPruneResult | undefined> {
    return this.store.exclusively(() => this.run(olderThanDays, nowMs));
  }

  private async run(olderThanDays: number, nowMs: number): Promise<LogPruneResult> {
    const cutoff = new Date(nowMs - olderThanDays * 86_400_000);
    // A partition's rows were all created before its bound: one ending by the cutoff holds none younger.
    const last = BigInt(firstIdOf(cutoff.getTime()));
    const partitionsDropped = (await this.partitions.bounds('request_logs'))
      .filter((b) => b.name !== CATCH_ALL && b.lessThan !== null && BigInt(b.lessThan) <= last)
      .map((b) => b.name);
    let deleted = await this.partitions.rows('request_logs', partitionsDropped);
    await this.partitions.drop('request_logs', partitionsDropped);
    for (;;) {
      const n = await this.store.deleteOlderThan(cutoff, PRUNE_CHUNK);
      deleted += n;
      if (n < PRUNE_CHUNK) break;
    }
    return { deleted, cutoff, olderThanDays, partitionsDropped };
  }
}
