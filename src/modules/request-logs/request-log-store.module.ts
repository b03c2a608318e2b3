import { Module } from '@nestjs/common';
import { RequestLogStore } from './request-log.store.js';

/** Reading the request log (the CLI's `keys logs`). */
@Module({
  providers: [RequestLogStore],
  exports: [RequestLogStore],
})
export class RequestLogStoreModule {}
