import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module.js';
import { ApiKeysModule } from '../api-keys/api-keys.module.js';
import { BalanceModule } from '../balance/balance.module.js';
import { SubaccountStore } from './subaccount.store.js';
import { SubaccountsService } from './subaccounts.service.js';

/** Sub-accounts of reseller accounts: what the API and the CLI share (no HTTP, no Redis). */
@Module({
  imports: [AccountsModule, BalanceModule, ApiKeysModule],
  providers: [SubaccountStore, SubaccountsService],
  exports: [SubaccountsService],
})
export class SubaccountsModule {}
