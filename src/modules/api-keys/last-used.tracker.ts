import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

/** How often the remembered times are written: "last used" is wanted to the second, not the millisecond. */
export const LAST_USED_FLUSH_MS = 2000;
const CHUNK = 500;

/**
 * Keeps `api_keys.last_used_at` current without a write per request: each request only notes
 * the time in memory; every LAST_USED_FLUSH_MS one UPDATE per 500 keys writes the latest time of
 * every key used since, and once more at shutdown. GREATEST keeps the column from going back
 * when several processes flush in a different order. A failed flush keeps its times for the next.
 */
@Injectable()
export class LastUsedTracker implements OnApplicationShutdown {
  private readonly logger = new Logger('LastUsed');
  private pending = new Map<string, number>();
  private timer?: NodeJS.Timeout;
  private flushing?: Promise<void>;
  private failing = false;
  private stopped = false;

  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  touch(keyId: string, at = Date.now()): void {
    const prev = this.pending.get(keyId);
    if (prev === undefined || prev < at) this.pending.set(keyId, at);
    // Started on first use, so a process that never authenticates (the CLI) runs no timer.
    if (!this.timer && !this.stopped) {
      this.timer = setInterval(() => void this.flush(), LAST_USED_FLUSH_MS);
      this.timer.unref();
    }
  }

  /** Writes what is pending; concurrent callers share the flush in progress and then run their own. */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
    if (this.pending.size === 0) return;
    this.flushing = this.write().finally(() => {
      this.flushing = undefined;
    });
    await this.flushing;
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    this.timer = undefined;
    await this.flush();
  }

  private async write(): Promise<void> {
    const batch = this.pending;
    this.pending = new Map();
    const entries = [...batch];
    try {
      for (let i = 0; i < entries.length; i += CHUNK) {
        const chunk = entries.slice(i, i + CHUNK);
        const cases = chunk.map(() => 'WHEN ? THEN ?').join(' ');
        const params: unknown[] = chunk.flatMap(([id, at]) => [id, new Date(at)]);
        await this.ds.query(
          // updated_at = updated_at: being used is not a change to the key.
          `UPDATE api_keys SET last_used_at = GREATEST(COALESCE(last_used_at, '1970-01-01'), CASE id ${cases} END),
           updated_at = updated_at WHERE id IN (${chunk.map(() => '?').join(', ')})`,
          [...params, ...chunk.map(([id]) => id)],
        );
      }
      if (this.failing) this.logger.log('last-used times are being written again');
      this.failing = false;
    } catch (err) {
      // Put the times back (keeping any newer one noted meanwhile) for the next flush.
      for (const [id, at] of batch) this.touchQuietly(id, at);
      if (!this.failing)
        this.logger.warn(`could not write last-used times (${(err as Error).message}); will retry`);
      this.failing = true;
    }
  }

  private touchQuietly(id: string, at: number): void {
    const prev = this.pending.get(id);
    if (prev === undefined || prev < at) this.pending.set(id, at);
  }
}
