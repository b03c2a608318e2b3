import { Module } from '@nestjs/common';
import { CallbacksModule } from '../modules/callbacks/callbacks.module.js';
import { DeliveryModule } from '../modules/delivery/delivery.module.js';
import { InboundSinkModule } from '../modules/inbound/inbound-sink.module.js';
import { RetentionScheduleModule } from '../modules/retention/retention.module.js';
import { FallbackModule } from '../modules/sending/fallback/fallback.module.js';
import { STATE_LISTENERS } from './state-listeners.js';

/**
 * The dispatch and callback processors; imported by the API process (RUN_WORKERS) and by
 * worker.ts. Here delivery meets the features built on it: every committed state change goes to
 * its listeners (state-listeners.ts) (which the recovery sweep also asks to catch up), every message received
 * to inbound.
 */
const DELIVERY = DeliveryModule.forRoot({
  stateListener: STATE_LISTENERS,
  inboundSink: InboundSinkModule,
});

@Module({
  imports: [DELIVERY, CallbacksModule, RetentionScheduleModule, FallbackModule],
  exports: [DELIVERY, FallbackModule],
})
export class WorkerModule {}
