import { BullModule } from '@nestjs/bull';
import { Global, Module } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { jitteredBackoff } from '../callbacks/callback.sender.js';
import { dispatchBackoff } from './dispatch-backoff.js';
import { CALLBACK_QUEUE, QUEUE_NAMES } from './dispatch.constants.js';
import { DispatchProducer } from './dispatch.producer.js';

/** A job whose worker died (no lock renewal) goes back to the queue after about this long. */
function lockSettings(c: AppConfig) {
  return { lockDuration: c.queueLockMs, stalledInterval: c.queueLockMs, maxStalledCount: 3 };
}

/** The Bull connection and queues, and the producer. Processors are registered by the worker module. */
@Global()
@Module({
  imports: [
    BullModule.forRootAsync({
      inject: [APP_CONFIG],
      useFactory: (c: AppConfig) => ({ redis: c.redisUrl, prefix: c.queuePrefix, settings: lockSettings(c) }),
    }),
    // Queue settings replace the root ones, hence the lock settings again.
    ...Object.values(QUEUE_NAMES).map((name) =>
      BullModule.registerQueueAsync({
        name,
        inject: [APP_CONFIG],
        useFactory: (c: AppConfig) => ({ settings: { ...lockSettings(c), backoffStrategies: { exponential: dispatchBackoff } } }),
      }),
    ),
    BullModule.registerQueueAsync({
      name: CALLBACK_QUEUE,
      inject: [APP_CONFIG],
      useFactory: (c: AppConfig) => ({
        settings: { ...lockSettings(c), backoffStrategies: { jittered: jitteredBackoff(c.callbackBackoffBaseMs) } },
      }),
    }),
  ],
  providers: [DispatchProducer],
  exports: [BullModule, DispatchProducer],
})
export class QueueModule {}
