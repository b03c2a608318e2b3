import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module.js';
import { CallbackQueueModule } from '../callbacks/callback-queue.module.js';
import { INBOUND_SINK } from '../delivery/transports/transport.js';
import { PumpingModule } from '../fraud/pumping/pumping.module.js';
import { MetricsModule } from '../metrics/metrics.module.js';
import { SmsPolicyModule } from '../sending/channels/sms/sms-policy.module.js';
import { SendingModule } from '../sending/sending.module.js';
import { InboundMetrics } from './inbound.metrics.js';
import { InboundModule } from './inbound.module.js';
import { InboundService } from './inbound.service.js';

/**
 * Inbound messages from the transports, in a process with queues: stored, then webhooks queued
 * and auto-replies sent. Exports INBOUND_SINK for delivery's workers.
 */
@Module({
  imports: [
    InboundModule,
    AccountsModule,
    CallbackQueueModule,
    SendingModule,
    SmsPolicyModule,
    MetricsModule,
    PumpingModule,
  ],
  providers: [InboundMetrics, InboundService, { provide: INBOUND_SINK, useExisting: InboundService }],
  exports: [INBOUND_SINK],
})
export class InboundSinkModule {}
