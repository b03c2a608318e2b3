import { Module } from '@nestjs/common';
import { MessagesController } from './messages.controller.js';
import { MessageExportHttp } from './search/message-export.http.js';
import { MessageSearchModule } from './search/message-search.module.js';
import { RequestSummaryController } from './search/request-summary.controller.js';

/** The message routes: lookup, search, export, and the request summary. */
@Module({
  imports: [MessageSearchModule],
  controllers: [MessagesController, RequestSummaryController],
  providers: [MessageExportHttp],
})
export class MessagesHttpModule {}
