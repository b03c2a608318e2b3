import { Module } from '@nestjs/common';
import { IdempotencyModule } from '../../idempotency/idempotency.module.js';
import { CallbackQueueModule } from '../callback-queue.module.js';
import { WebhooksController } from './webhooks.controller.js';
import { WebhooksModule } from './webhooks.module.js';
import { WebhooksService } from './webhooks.service.js';

/** The /webhooks routes (creating one takes an Idempotency-Key). */
@Module({
  imports: [WebhooksModule, CallbackQueueModule, IdempotencyModule],
  controllers: [WebhooksController],
  providers: [WebhooksService],
})
export class WebhooksHttpModule {}
