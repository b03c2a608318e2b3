import { Module } from '@nestjs/common';
import { AccountStore } from './account.store.js';
import { AccountsService } from './accounts.service.js';

/** Accounts themselves: what the CLI needs, with no Redis and no metrics. */
@Module({
  providers: [AccountStore, AccountsService],
  exports: [AccountsService],
})
export class AccountsModule {}
