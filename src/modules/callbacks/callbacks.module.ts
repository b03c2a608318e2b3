import { Module } from '@nestjs/common';
import { MetricsModule } from '../metrics/metrics.module.js';
import { CallbackQueueModule } from './callback-queue.module.js';
import { CallbackProcessor } from './callback.processor.js';
import { CallbackSender } from './callback.sender.js';

/** Delivering callbacks: the processor and the sender (signing, safe POST, per-target isolation). For worker contexts. */
@Module({
  imports: [CallbackQueueModule, MetricsModule],
  providers: [CallbackSender, CallbackProcessor],
  exports: [CallbackQueueModule],
})
export class CallbacksModule {}
