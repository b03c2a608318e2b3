import { Module } from '@nestjs/common';
import { BalanceModule } from '../../balance/balance.module.js';
import { MessageQueryService } from '../message-query.service.js';
import { MessagesModule } from '../messages.module.js';
import { MessageExportService } from './message-export.service.js';
import { MessageSearchService } from './message-search.service.js';
import { RequestSummaryService } from './request-summary.service.js';

/** Lookups, search, export and request summaries, for the API and the CLI alike. */
@Module({
  imports: [MessagesModule, BalanceModule],
  providers: [MessageQueryService, MessageSearchService, MessageExportService, RequestSummaryService],
  exports: [MessageQueryService, MessageSearchService, MessageExportService, RequestSummaryService],
})
export class MessageSearchModule {}
