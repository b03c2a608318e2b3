import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module.js';
import { BalanceService } from './balance.service.js';
import { RefundTotals } from './refund-totals.js';

@Module({
  imports: [AccountsModule],
  providers: [BalanceService, RefundTotals],
  exports: [BalanceService, RefundTotals],
})
export class BalanceModule {}
