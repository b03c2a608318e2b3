import { BullModule } from '@nestjs/bull';
import { Global, Module } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { CALLBACK_QUEUE, QUEUE_NAMES } from './dispatch.constants.js';
import { DispatchProducer } from './dispatch.producer.js';

/** The Bull connection and queues, and the producer. Processors live in the worker module. */
@Global()
@Module({
  imports: [
    BullModule.forRootAsync({
      inject: [APP_CONFIG],
      useFactory: (c: AppConfig) => ({ redis: c.redisUrl, prefix: c.queuePrefix }),
    }),
    BullModule.registerQueue(...Object.values(QUEUE_NAMES).map((name) => ({ name })), { name: CALLBACK_QUEUE }),
  ],
  providers: [DispatchProducer],
  exports: [BullModule, DispatchProducer],
})
export class QueueModule {}
