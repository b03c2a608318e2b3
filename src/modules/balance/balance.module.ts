import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module.js';
import { BalanceService } from './balance.service.js';

@Module({
  imports: [AccountsModule],
  providers: [BalanceService],
  exports: [BalanceService],
})
export class BalanceModule {}
