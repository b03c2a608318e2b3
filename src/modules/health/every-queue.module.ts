import { getQueueToken } from '@nestjs/bull';
import { Inject, Module } from '@nestjs/common';
import type { Queue } from 'bull';
import { CALLBACK_QUEUE } from '../callbacks/callback-job.js';
import { CallbackQueueModule } from '../callbacks/callback-queue.module.js';
import { DISPATCH_QUEUES } from '../delivery/dispatch/dispatch.constants.js';
import { QueueModule } from '../delivery/queue.module.js';
import { EVERY_QUEUE } from './health.tokens.js';
import { MetricsModule } from '../metrics/metrics.module.js';
import { MetricsService } from '../metrics/metrics.service.js';

/**
 * Every Bull queue of the application, for those that watch them all: the health probe (through
 * EVERY_QUEUE) and the queue-depth gauge of /metrics.
 */
@Module({
  imports: [QueueModule, CallbackQueueModule, MetricsModule],
  providers: [
    {
      provide: EVERY_QUEUE,
      inject: [...DISPATCH_QUEUES, CALLBACK_QUEUE].map((name) => getQueueToken(name)),
      useFactory: (...queues: Queue[]) => queues,
    },
  ],
  exports: [EVERY_QUEUE, QueueModule, CallbackQueueModule],
})
export class AllQueuesModule {
  constructor(metrics: MetricsService, @Inject(EVERY_QUEUE) queues: Queue[]) {
    metrics.watchQueues(queues);
  }
}
