import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { IdempotencyStore } from './idempotency.store.js';

/** Expired keys count as absent already (the claim checks expires_at); deleting them only frees space. */
const SWEEP_EVERY_MS = 10 * 60_000;

/**
 * Deletes Idempotency-Keys past their 24 h, every 10 minutes, in each API process: the
 * statements are idempotent, so processes sweeping at once only find less to delete.
 */
@Injectable()
export class IdempotencySweep implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly log = new Logger('Idempotency');
  private timer?: NodeJS.Timeout;

  constructor(private readonly store: IdempotencyStore) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.sweep(), SWEEP_EVERY_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  async sweep(): Promise<number> {
    try {
      return await this.store.deleteExpired();
    } catch (err) {
      this.log.warn(`expired Idempotency-Keys not deleted: ${(err as Error).message}`);
      return 0;
    }
  }
}
