import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { MicroBatcher } from '../../platform/batching/micro-batcher.js';
import { ApiKeyStore } from './api-key.store.js';

/** How often the remembered times are written: "last used" is wanted to the second, not the millisecond. */
export const LAST_USED_FLUSH_MS = 2000;
const CHUNK = 500;

type Use = readonly [keyId: string, at: number];

/**
 * Keeps `api_keys.last_used_at` current without a write per request: each request only notes
 * the time; LAST_USED_FLUSH_MS after the first note one UPDATE per 500 keys writes the latest
 * time of every key used since, and once more at shutdown. GREATEST keeps the column from going
 * back when several processes flush in a different order. A failed flush keeps its times for
 * the next.
 */
@Injectable()
export class LastUsedTracker implements OnApplicationShutdown {
  private readonly logger = new Logger('LastUsed');
  private failing = false;
  // Nothing is noted in a process that never authenticates (the CLI), so it runs no timer.
  private readonly batcher = new MicroBatcher<Use>({
    delayMs: LAST_USED_FLUSH_MS,
    flush: (uses) => this.write(uses),
  });

  constructor(private readonly store: ApiKeyStore) {}

  touch(keyId: string, at = Date.now()): void {
    this.batcher.add([keyId, at]);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.batcher.close();
  }

  private async write(uses: Use[]): Promise<void> {
    const latest = new Map<string, number>();
    for (const [id, at] of uses) if (!((latest.get(id) ?? -Infinity) >= at)) latest.set(id, at);
    const entries = [...latest];
    try {
      for (let i = 0; i < entries.length; i += CHUNK) {
        await this.store.touchLastUsed(
          entries.slice(i, i + CHUNK).map(([id, at]) => [id, new Date(at)] as const),
        );
      }
      if (this.failing) this.logger.log('last-used times are being written again');
      this.failing = false;
    } catch (err) {
      // Put the times back for the next flush (one per key: newer ones noted meanwhile win there).
      this.batcher.requeue(entries);
      if (!this.failing)
        this.logger.warn(`could not write last-used times (${(err as Error).message}); will retry`);
      this.failing = true;
    }
  }
}
