import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module.js';
import { BalanceService } from './balance.service.js';
import { RefundTotals } from './refund-totals.js';
import { SpendLimits } from './spend-limits.js';
import { AccountChannelStore } from './account-channel.store.js';
import { TransferStore } from './transfer.store.js';
import { DestinationPriceStore } from './pricing/destination-price.store.js';
import { Pricing } from './pricing/pricing.service.js';

@Module({
  imports: [AccountsModule],
  providers: [
    BalanceService,
    SpendLimits,
    RefundTotals,
    AccountChannelStore,
    TransferStore,
    DestinationPriceStore,
    Pricing,
  ],
  exports: [BalanceService, SpendLimits, RefundTotals, TransferStore, DestinationPriceStore, Pricing],
})
export class BalanceModule {}
