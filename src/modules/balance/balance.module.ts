import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module.js';
import { BalanceService } from './balance.service.js';
import { SpendLimits } from './spend-limits.js';

@Module({
  imports: [AccountsModule],
  providers: [BalanceService, SpendLimits],
  exports: [BalanceService, SpendLimits],
})
export class BalanceModule {}
