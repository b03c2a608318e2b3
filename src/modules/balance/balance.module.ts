import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module.js';
import { BalanceService } from './balance.service.js';
import { SpendLimits } from './spend-limits.service.js';
import { AccountChannelStore } from './account-channel.store.js';
import { TransferStore } from './transfer.store.js';
import { LedgerStore } from './ledger.store.js';
import { DailySpendStore } from './daily-spend.store.js';
import { DestinationPriceStore } from './pricing/destination-price.store.js';
import { Pricing } from './pricing/pricing.service.js';

@Module({
  imports: [AccountsModule],
  providers: [
    BalanceService,
    SpendLimits,
    AccountChannelStore,
    LedgerStore,
    DailySpendStore,
    TransferStore,
    DestinationPriceStore,
    Pricing,
  ],
  exports: [BalanceService, SpendLimits, LedgerStore, TransferStore, DestinationPriceStore, Pricing],
})
export class BalanceModule {}
