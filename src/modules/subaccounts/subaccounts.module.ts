import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module.js';
import { ApiKeysModule } from '../api-keys/api-keys.module.js';
import { BalanceModule } from '../balance/balance.module.js';
import { MetricsModule } from '../metrics/metrics.module.js';
import { SubaccountMetrics } from './subaccounts.metrics.js';
import { SubaccountStore } from './subaccount.store.js';
import { SubaccountsService } from './subaccounts.service.js';

/** Sub-accounts of reseller accounts: the service behind the API routes. */
@Module({
  imports: [AccountsModule, BalanceModule, ApiKeysModule, MetricsModule],
  providers: [SubaccountMetrics, SubaccountStore, SubaccountsService],
  exports: [SubaccountsService],
})
export class SubaccountsModule {}
