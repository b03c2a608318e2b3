import { AccountsModule } from '../accounts/accounts.module.js';
import { Module } from '@nestjs/common';
import { IdempotencyModule } from '../idempotency/idempotency.module.js';
import { MessagesModule } from '../messages/messages.module.js';
import { SuppressionsController } from './suppressions.controller.js';
import { SuppressionsModule } from './suppressions.module.js';
import { UnsubscribeController } from './unsubscribe.controller.js';
import { UnsubscribeLinks } from './unsubscribe-links.service.js';

/** The suppression routes and the e-mail one-click unsubscribe route. */
@Module({
  imports: [AccountsModule, SuppressionsModule, MessagesModule, IdempotencyModule],
  controllers: [SuppressionsController, UnsubscribeController],
  providers: [UnsubscribeLinks],
})
export class SuppressionsHttpModule {}
