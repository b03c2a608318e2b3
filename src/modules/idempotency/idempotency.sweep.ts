import { Injectable } from '@nestjs/common';
import { PeriodicJob } from '../../platform/periodic/periodic-job.js';
import { IdempotencyStore } from './idempotency.store.js';

/** Expired keys count as absent already (the claim checks expires_at); deleting them only frees space. */
const SWEEP_EVERY_MS = 10 * 60_000;

/**
 * Deletes Idempotency-Keys past their 24 h, every 10 minutes, in each API process: the
 * statements are idempotent, so processes sweeping at once only find less to delete.
 */
@Injectable()
export class IdempotencySweep extends PeriodicJob<number> {
  constructor(private readonly store: IdempotencyStore) {
    super('Idempotency', { everyMs: SWEEP_EVERY_MS, failure: 'expired Idempotency-Keys not deleted' });
  }

  protected round(): Promise<number> {
    return this.store.deleteExpired();
  }

  async sweep(): Promise<number> {
    return (await this.runNow()) ?? 0;
  }
}
