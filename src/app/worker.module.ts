import { Module } from '@nestjs/common';
import { BalanceModule } from '../modules/balance/balance.module.js';
import { CallbackOutbox } from '../modules/callbacks/callback-outbox.js';
import { CallbacksModule } from '../modules/callbacks/callbacks.module.js';
import { DeliveryReportService } from '../modules/delivery/delivery-report.service.js';
import { Dispatcher } from '../modules/delivery/dispatcher.js';
import { DispatchAttempts } from '../modules/delivery/dispatch-attempts.js';
import { ProviderFaults } from '../modules/delivery/provider-faults.js';
import { DispatchWorker } from '../modules/delivery/dispatch.worker.js';
import { ReceiptExpiry } from '../modules/delivery/receipt-expiry.js';
import { RecoverySweep } from '../modules/delivery/recovery.sweep.js';
import { STATE_CHANGE_LISTENER } from '../modules/delivery/state-change-listener.js';
import { TransportRegistry } from '../modules/delivery/transport.registry.js';
import { MessagesModule } from '../modules/messages/messages.module.js';
import { QueueModule } from '../modules/delivery/queue.module.js';
import { MetricsModule } from '../modules/metrics/metrics.module.js';
import { MessageStateService } from '../modules/delivery/message-state.service.js';
import { INBOUND_SINK } from '../modules/delivery/transports/transport.js';
import { InboundModule } from '../modules/inbound/inbound.module.js';
import { InboundService } from '../modules/inbound/inbound.service.js';
import { SmsModule } from '../modules/sending/channels/sms/sms.module.js';
import { SendingModule } from '../modules/sending/sending.module.js';
import { SuppressionsModule } from '../modules/suppressions/suppressions.module.js';
import { DueScanner } from '../modules/delivery/due-scanner.js';
import { HandOverClaims } from '../modules/delivery/hand-over-claims.js';
import { ValidityExpiry } from '../modules/delivery/validity-expiry.js';
import { ConnectorPool } from '../modules/delivery/connectors/connector-pool.js';
import { RoutingModule } from '../modules/delivery/connectors/routing.module.js';
import { RedisModule } from '../platform/redis/redis.module.js';
import { RetentionScheduleModule } from '../modules/retention/retention.module.js';

/**
 * The dispatch and callback processors; imported by the API process (RUN_WORKERS) and by
 * worker.ts. Here delivery meets callbacks: every committed state change goes to the callback
 * outbox, which the recovery sweep also asks to catch up.
 */
@Module({
  imports: [
    BalanceModule,
    MessagesModule,
    QueueModule,
    MetricsModule,
    CallbacksModule,
    RoutingModule,
    RedisModule,
    InboundModule,
    SmsModule,
    SendingModule,
    SuppressionsModule,
    RetentionScheduleModule,
  ],
  providers: [
    ConnectorPool,
    TransportRegistry,
    MessageStateService,
    DeliveryReportService,
    Dispatcher,
    DispatchAttempts,
    ProviderFaults,
    ReceiptExpiry,
    RecoverySweep,
    DispatchWorker,
    { provide: STATE_CHANGE_LISTENER, useExisting: CallbackOutbox },
    // Inbound messages from the transports: stored, then webhooks queued and auto-replies sent.
    InboundService,
    { provide: INBOUND_SINK, useExisting: InboundService },
    HandOverClaims,
    DueScanner,
    ValidityExpiry,
  ],
  exports: [
    TransportRegistry,
    RecoverySweep,
    MessageStateService,
    ProviderFaults,
    DueScanner,
    ValidityExpiry,
  ],
})
export class WorkerModule {}
