import { Module } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { LOG_DB, NOTIFICATION_DB } from '../data-sources.js';
import { PartitionStore } from './partition.store.js';

/**
 * The partition statements, each run on the pool of its table's database: used by the message
 * prune and the workers' days ahead (retention) and by `logs prune` (request logs).
 */
@Module({
  providers: [
    {
      provide: PartitionStore,
      useFactory: (main: DataSource, notifications: DataSource, logs: DataSource) =>
        new PartitionStore(main, notifications, logs),
      inject: [getDataSourceToken(), getDataSourceToken(NOTIFICATION_DB), getDataSourceToken(LOG_DB)],
    },
  ],
  exports: [PartitionStore],
})
export class PartitionStoreModule {}
