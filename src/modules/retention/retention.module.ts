import { Module } from '@nestjs/common';
import { PartitionStoreModule } from '../../database/partitions/partition-store.module.js';
import { CallbackStoreModule } from '../callbacks/callback-store.module.js';
import { ErasureService } from './erasure.service.js';
import { ErasureStore } from './erasure.store.js';
import { RetentionService } from './retention.service.js';
import { RetentionStore } from './retention.store.js';
import { RetentionScheduler } from './retention.scheduler.js';
import { PartitionScheduler } from './partition.scheduler.js';
import { PartitionPrune } from './partition-prune.service.js';
import { PartitionPruneStore } from './partition-prune.store.js';
import { LinksModule } from '../links/links.module.js';

/** Message retention, archives and erasure: the rows that leave the tables, and where they go. */
@Module({
  // The callback outbox's recipient hashes, which an erasure looks events up by.
  imports: [CallbackStoreModule, LinksModule, PartitionStoreModule],
  providers: [
    RetentionStore,
    RetentionService,
    ErasureStore,
    ErasureService,
    PartitionPruneStore,
    PartitionPrune,
  ],
  exports: [RetentionStore, RetentionService, ErasureService, PartitionStoreModule],
})
export class RetentionModule {}

/** The prune a worker runs on RETENTION_SCHEDULE (off by default), and the partitions it makes ahead. */
@Module({
  imports: [RetentionModule],
  providers: [RetentionScheduler, PartitionScheduler],
})
export class RetentionScheduleModule {}
