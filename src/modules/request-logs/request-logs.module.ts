import { Module, RequestMethod, type MiddlewareConsumer, type NestModule } from '@nestjs/common';
import { RequestLogMiddleware } from './request-log.middleware.js';
import { RequestLogWriter } from './request-log.writer.js';

/** One row per authenticated request in the log database, written in batches. */
@Module({
  providers: [RequestLogWriter],
  exports: [RequestLogWriter],
})
export class RequestLogsModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(RequestLogMiddleware).forRoutes({ path: '{*path}', method: RequestMethod.ALL });
  }
}
