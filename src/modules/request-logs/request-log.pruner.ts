import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { RequestLogStore } from './request-log.store.js';

/** Rows per DELETE: small enough that no statement holds locks for long on a busy log table. */
export const PRUNE_CHUNK = 5000;

/**
 * Deletes request logs older than the retention period (REQUEST_LOG_RETENTION_DAYS, default
 * 30), oldest first, in chunks along the created_at index. Run by `logs prune` (e.g. from cron).
 */
@Injectable()
export class RequestLogPruner {
  constructor(
    private readonly store: RequestLogStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async prune(
    olderThanDays = this.config.requestLogRetentionDays,
  ): Promise<{ deleted: number; cutoff: Date; olderThanDays: number }> {
    const cutoff = new Date(Date.now() - olderThanDays * 86_400_000);
    let deleted = 0;
    for (;;) {
      const n = await this.store.deleteOlderThan(cutoff, PRUNE_CHUNK);
      deleted += n;
      if (n < PRUNE_CHUNK) break;
    }
    return { deleted, cutoff, olderThanDays };
  }
}
