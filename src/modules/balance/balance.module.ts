import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module.js';
import { BalanceService } from './balance.service.js';
import { RefundTotals } from './refund-totals.js';
import { SpendLimits } from './spend-limits.js';
import { AccountChannelStore } from './account-channel.store.js';
import { TransferStore } from './transfer.store.js';

@Module({
  imports: [AccountsModule],
  providers: [BalanceService, SpendLimits, RefundTotals, AccountChannelStore, TransferStore],
  exports: [BalanceService, SpendLimits, RefundTotals, TransferStore],
})
export class BalanceModule {}
