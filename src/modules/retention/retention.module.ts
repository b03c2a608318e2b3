import { Module } from '@nestjs/common';
import { RetentionService } from './retention.service.js';
import { RetentionStore } from './retention.store.js';

/** Message retention, archives and erasure: the rows that leave the tables, and where they go. */
@Module({
  providers: [RetentionStore, RetentionService],
  exports: [RetentionStore, RetentionService],
})
export class RetentionModule {}
