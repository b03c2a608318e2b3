import { Module } from '@nestjs/common';
import { AccountsService } from './accounts.service.js';

/** Accounts themselves: what the CLI needs, with no Redis and no metrics. */
@Module({
  providers: [AccountsService],
  exports: [AccountsService],
})
export class AccountsModule {}
