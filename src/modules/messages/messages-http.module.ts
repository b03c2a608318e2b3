import { AccountsModule } from '../accounts/accounts.module.js';
import { Module } from '@nestjs/common';
import { MessagesController } from './messages.controller.js';
import { RedisModule } from '../../platform/redis/redis.module.js';
import { ExportLeases } from './search/export-leases.service.js';
import { MessageExportHttp } from './search/message-export.http.js';
import { MessageSearchModule } from './search/message-search.module.js';

/** The message routes: lookup, search and export. */
@Module({
  imports: [AccountsModule, MessageSearchModule, RedisModule],
  controllers: [MessagesController],
  providers: [MessageExportHttp, ExportLeases],
})
export class MessagesHttpModule {}
