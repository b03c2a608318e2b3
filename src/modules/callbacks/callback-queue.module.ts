import { BullModule } from '@nestjs/bull';
import { Module } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { QueueModule } from '../delivery/queue.module.js';
import { jitteredBackoff, lockSettings } from '../delivery/retry-policy.js';
import { CallbackOutbox } from './callback.outbox.js';
import { CALLBACK_QUEUE } from './callback-job.js';
import { CallbackStoreModule } from './callback-store.module.js';

/**
 * The callback queue and its producer (the outbox). On the Bull connection of QueueModule; the
 * queue's settings replace the root ones, hence the lock settings again.
 */
@Module({
  imports: [
    QueueModule,
    CallbackStoreModule,
    BullModule.registerQueueAsync({
      name: CALLBACK_QUEUE,
      inject: [APP_CONFIG],
      useFactory: (c: AppConfig) => ({
        settings: {
          ...lockSettings(c),
          backoffStrategies: { jittered: jitteredBackoff(c.callbackBackoffBaseMs) },
        },
      }),
    }),
  ],
  providers: [CallbackOutbox],
  exports: [BullModule, CallbackOutbox],
})
export class CallbackQueueModule {}
