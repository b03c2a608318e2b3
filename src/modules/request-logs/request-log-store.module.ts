import { Module } from '@nestjs/common';
import { RequestLogStore } from './request-log.store.js';

/** The request log as stored: written by the API, read by `keys logs`, pruned by `logs prune`. */
@Module({
  providers: [RequestLogStore],
  exports: [RequestLogStore],
})
export class RequestLogStoreModule {}
