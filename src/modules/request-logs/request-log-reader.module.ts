import { Module } from '@nestjs/common';
import { RequestLogReader } from './request-log-reader.js';

/** Reading the request log (the CLI's `keys logs`). */
@Module({
  providers: [RequestLogReader],
  exports: [RequestLogReader],
})
export class RequestLogReaderModule {}
