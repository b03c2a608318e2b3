import { Module } from '@nestjs/common';
import { IdempotencyModule } from '../idempotency/idempotency.module.js';
import { SubaccountsController } from './subaccounts.controller.js';
import { SubaccountsModule } from './subaccounts.module.js';

/** The sub-account routes, for a parent account's live key. */
@Module({
  imports: [SubaccountsModule, IdempotencyModule],
  controllers: [SubaccountsController],
})
export class SubaccountsHttpModule {}
