import { BullModule } from '@nestjs/bull';
import { Module } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { redisOptions } from '../../platform/redis/redis-options.js';
import { MessagesModule } from '../messages/messages.module.js';
import { DISPATCH_QUEUES } from './dispatch/dispatch.constants.js';
import { DispatchProducer } from './dispatch/dispatch.producer.js';
import { dispatchBackoff, lockSettings } from './retry-policy.js';

/**
 * The Bull connection (for every queue), the dispatch queues and their producer. The callback
 * queue is registered by callbacks/; processors by delivery.module.ts.
 */
@Module({
  imports: [
    MessagesModule,
    BullModule.forRootAsync({
      inject: [APP_CONFIG],
      useFactory: (c: AppConfig) => ({
        redis: redisOptions(c.redis),
        prefix: c.queuePrefix,
        settings: lockSettings(c),
      }),
    }),
    // Queue settings replace the root ones, hence the lock settings again.
    ...DISPATCH_QUEUES.map((name) =>
      BullModule.registerQueueAsync({
        name,
        inject: [APP_CONFIG],
        useFactory: (c: AppConfig) => ({
          settings: { ...lockSettings(c), backoffStrategies: { exponential: dispatchBackoff } },
        }),
      }),
    ),
  ],
  providers: [DispatchProducer],
  exports: [BullModule, DispatchProducer],
})
export class QueueModule {}
