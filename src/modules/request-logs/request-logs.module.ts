import { Module } from '@nestjs/common';
import { RequestLogStoreModule } from './request-log-store.module.js';
import { RequestLogMiddleware } from './request-log.middleware.js';
import { RequestLogWriter } from './request-log.writer.js';

/**
 * One row per authenticated request in the log database, written in batches. The middleware
 * is mounted by configureApp with the others every request passes (one Express layer), not
 * through Nest's middleware consumer, which would add a router layer of its own.
 */
@Module({
  imports: [RequestLogStoreModule],
  providers: [RequestLogWriter, RequestLogMiddleware],
  exports: [RequestLogWriter, RequestLogMiddleware],
})
export class RequestLogsModule {}
