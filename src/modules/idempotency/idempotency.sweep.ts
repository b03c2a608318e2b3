import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { PeriodicTask } from '../../platform/periodic/periodic-task.js';
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
  private readonly task = new PeriodicTask({
    run: () => this.store.deleteExpired(),
    everyMs: SWEEP_EVERY_MS,
    logger: this.log,
    failure: 'expired Idempotency-Keys not deleted',
  });

  constructor(private readonly store: IdempotencyStore) {}

  onApplicationBootstrap(): void {
    this.task.start();
  }

  onApplicationShutdown(): Promise<void> {
    return this.task.stop();
  }

  async sweep(): Promise<number> {
    return (await this.task.run()) ?? 0;
  }
}
