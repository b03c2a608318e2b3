import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module.js';
import { MetricsModule } from '../metrics/metrics.module.js';
import { CallbackStoreModule } from './callback-store.module.js';
import { CallbackQueueModule } from './callback-queue.module.js';
import { CallbackMetrics } from './callbacks.metrics.js';
import { CallbackProcessor } from './callback.processor.js';
import { CallbackSender } from './callback.sender.js';
import { RedisModule } from '../../platform/redis/redis.module.js';
import { TestCallbackCap } from './test-callback-cap.service.js';
import { WebhookAttempts } from './webhooks/webhook-attempts.service.js';
import { WebhookStoreModule } from './webhooks/webhook-store.module.js';
import { WebhookMetrics } from './webhooks/webhooks.metrics.js';

/** Delivering callbacks: the processor and the sender (signing, safe POST, per-target isolation). For worker contexts. */
@Module({
  imports: [
    CallbackQueueModule,
    CallbackStoreModule,
    AccountsModule,
    MetricsModule,
    RedisModule,
    WebhookStoreModule,
  ],
  providers: [
    CallbackMetrics,
    CallbackSender,
    CallbackProcessor,
    TestCallbackCap,
    WebhookAttempts,
    WebhookMetrics,
  ],
  exports: [CallbackQueueModule],
})
export class CallbacksModule {}
