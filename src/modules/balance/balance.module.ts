import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module.js';
import { BalanceService } from './balance.service.js';
import { RefundTotals } from './refund-totals.js';
import { SpendLimits } from './spend-limits.js';

@Module({
  imports: [AccountsModule],
  providers: [BalanceService, SpendLimits, RefundTotals],
  exports: [BalanceService, SpendLimits, RefundTotals],
})
export class BalanceModule {}
