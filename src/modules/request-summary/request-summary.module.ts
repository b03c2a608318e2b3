import { AccountsModule } from '../accounts/accounts.module.js';
import { Module } from '@nestjs/common';
import { BalanceModule } from '../balance/balance.module.js';
import { MessagesModule } from '../messages/messages.module.js';
import { RequestSummaryController } from './request-summary.controller.js';
import { RequestSummaryService } from './request-summary.service.js';

/**
 * GET /api/v1/json/bulk/{api_reference}: a request's messages counted by state (from the
 * message tables) and its refunds (from the ledger). It sits above both, which must not import
 * each other.
 */
@Module({
  imports: [AccountsModule, MessagesModule, BalanceModule],
  controllers: [RequestSummaryController],
  providers: [RequestSummaryService],
})
export class RequestSummaryModule {}
