import { Module } from '@nestjs/common';
import { PartitionStoreModule } from '../../database/partitions/partition-store.module.js';
import { RequestLogStore } from './request-log.store.js';

/**
 * The request log as stored: written by the API, read by `keys logs`, pruned by `logs prune`
 * (by whole day partitions where it can).
 */
@Module({
  imports: [PartitionStoreModule],
  providers: [RequestLogStore],
  exports: [RequestLogStore, PartitionStoreModule],
})
export class RequestLogStoreModule {}
