import { Module } from '@nestjs/common';
import { CallbackStoreModule } from '../callbacks/callback-store.module.js';
import { ErasureService } from './erasure.service.js';
import { ErasureStore } from './erasure.store.js';
import { RetentionService } from './retention.service.js';
import { RetentionStore } from './retention.store.js';
import { RetentionScheduler } from './retention.scheduler.js';
import { LinksModule } from '../links/links.module.js';

/** Message retention, archives and erasure: the rows that leave the tables, and where they go. */
@Module({
  // The callback outbox's recipient hashes, which an erasure looks events up by.
  imports: [CallbackStoreModule, LinksModule],
  providers: [RetentionStore, RetentionService, ErasureStore, ErasureService],
  exports: [RetentionStore, RetentionService, ErasureService],
})
export class RetentionModule {}

/** The prune a worker runs on RETENTION_SCHEDULE (off by default). */
@Module({
  imports: [RetentionModule],
  providers: [RetentionScheduler],
})
export class RetentionScheduleModule {}
