import { Module } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { NOTIFICATION_DB } from '../../database/data-sources.js';
import { PartitionStore } from '../../database/partitions/partition.store.js';
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

/** The partition statements run on the pool of each table's database. */
const PARTITION_STORE = {
  provide: PartitionStore,
  useFactory: (main: DataSource, notifications: DataSource) => new PartitionStore(main, notifications),
  inject: [getDataSourceToken(), getDataSourceToken(NOTIFICATION_DB)],
};

/** Message retention, archives and erasure: the rows that leave the tables, and where they go. */
@Module({
  // The callback outbox's recipient hashes, which an erasure looks events up by.
  imports: [CallbackStoreModule, LinksModule],
  providers: [
    RetentionStore,
    RetentionService,
    ErasureStore,
    ErasureService,
    PARTITION_STORE,
    PartitionPruneStore,
    PartitionPrune,
  ],
  exports: [RetentionStore, RetentionService, ErasureService, PartitionStore],
})
export class RetentionModule {}

/** The prune a worker runs on RETENTION_SCHEDULE (off by default), and the partitions it makes ahead. */
@Module({
  imports: [RetentionModule],
  providers: [RetentionScheduler, PartitionScheduler],
})
export class RetentionScheduleModule {}
