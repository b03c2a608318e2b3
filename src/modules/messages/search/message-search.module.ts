import { Module } from '@nestjs/common';
import { MessageQueryService } from '../message-query.service.js';
import { MessagesModule } from '../messages.module.js';
import { LinksModule } from '../../links/links.module.js';
import { MessageExportService } from './message-export.service.js';
import { MessageSearchService } from './message-search.service.js';

/** Lookups, search and export, for the API and the CLI alike. */
@Module({
  imports: [MessagesModule, LinksModule],
  providers: [MessageQueryService, MessageSearchService, MessageExportService],
  exports: [MessageQueryService, MessageSearchService, MessageExportService],
})
export class MessageSearchModule {}
