import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { LOG_DB } from '../../database/data-sources.js';

/** Rows per DELETE: small enough that no statement holds locks for long on a busy log table. */
export const PRUNE_CHUNK = 5000;

/**
 * Deletes request logs older than the retention period (REQUEST_LOG_RETENTION_DAYS, default
 * 30), oldest first, in chunks along the created_at index. Run by `logs prune` (e.g. from cron).
 */
@Injectable()
export class RequestLogPruner {
  constructor(
    @InjectDataSource(LOG_DB) private readonly ds: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async prune(
    olderThanDays = this.config.requestLogRetentionDays,
  ): Promise<{ deleted: number; cutoff: Date; olderThanDays: number }> {
    const cutoff = new Date(Date.now() - olderThanDays * 86_400_000);
    let deleted = 0;
    for (;;) {
      const result = (await this.ds.query(
        'DELETE FROM request_logs WHERE created_at < ? ORDER BY created_at LIMIT ?',
        [cutoff, PRUNE_CHUNK],
      )) as { affectedRows?: number };
      const n = result.affectedRows ?? 0;
      deleted += n;
      if (n < PRUNE_CHUNK) break;
    }
    return { deleted, cutoff, olderThanDays };
  }
}
