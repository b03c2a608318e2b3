import { BullModule, getQueueToken } from '@nestjs/bull';
import { Module } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { jitteredBackoff } from '../callbacks/callback.sender.js';
import { MessagesModule } from '../messages/messages.module.js';
import { dispatchBackoff } from './dispatch-backoff.js';
import { CALLBACK_QUEUE, EVERY_QUEUE, QUEUE_NAMES } from './dispatch.constants.js';
import { DispatchProducer } from './dispatch.producer.js';

/**
 * A job whose worker died goes back to the queue within QUEUE_LOCK_MS. Bull needs two stalled
 * checks to move a job (the first marks the active jobs, the second moves those whose lock has
 * lapsed), so the worst case is the lock's life plus two check intervals: with the check every
 * lockMs/6 and the lock living 2/3 of lockMs, that is lockMs. (With the check as seldom as the
 * lock's life, takeover took up to three times QUEUE_LOCK_MS.) The lock is renewed four times
 * per life, so a worker slowed by load does not lose a job it is still working on.
 */
export function lockSettings(c: Pick<AppConfig, 'queueLockMs'>) {
  const lockDuration = Math.floor((c.queueLockMs * 2) / 3);
  return {
    lockDuration,
    lockRenewTime: Math.round(lockDuration / 4),
    stalledInterval: Math.max(250, Math.floor(c.queueLockMs / 6)),
    maxStalledCount: 3,
  };
}

/** The Bull connection and queues, and the producer. Processors are registered by the worker module. */
@Module({
  imports: [
    MessagesModule,
    BullModule.forRootAsync({
      inject: [APP_CONFIG],
      useFactory: (c: AppConfig) => ({ redis: c.redisUrl, prefix: c.queuePrefix, settings: lockSettings(c) }),
    }),
    // Queue settings replace the root ones, hence the lock settings again.
    ...Object.values(QUEUE_NAMES).map((name) =>
      BullModule.registerQueueAsync({
        name,
        inject: [APP_CONFIG],
        useFactory: (c: AppConfig) => ({
          settings: { ...lockSettings(c), backoffStrategies: { exponential: dispatchBackoff } },
        }),
      }),
    ),
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
  providers: [
    DispatchProducer,
    {
      provide: EVERY_QUEUE,
      inject: [...Object.values(QUEUE_NAMES), CALLBACK_QUEUE].map((name) => getQueueToken(name)),
      useFactory: (...queues: unknown[]) => queues,
    },
  ],
  exports: [BullModule, DispatchProducer, EVERY_QUEUE],
})
export class QueueModule {}
