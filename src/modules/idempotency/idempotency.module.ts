import { Module } from '@nestjs/common';
import { IdempotencyGuard } from './idempotency.guard.js';
import { IdempotencyStore } from './idempotency.store.js';
import { IdempotencySweep } from './idempotency.sweep.js';

/**
 * Idempotency-Key on creating POSTs: a module whose controllers use `@Idempotent()` imports
 * this one (the route guard is resolved in the controller's module).
 */
@Module({
  providers: [IdempotencyStore, IdempotencyGuard, IdempotencySweep],
  exports: [IdempotencyStore, IdempotencyGuard],
})
export class IdempotencyModule {}
