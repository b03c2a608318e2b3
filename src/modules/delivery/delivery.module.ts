import { Module, type DynamicModule, type Type } from '@nestjs/common';
import { RedisModule } from '../../platform/redis/redis.module.js';
import { MessagesModule } from '../messages/messages.module.js';
import { MetricsModule } from '../metrics/metrics.module.js';
import { SuppressionsModule } from '../suppressions/suppressions.module.js';
import { DeliveryMetricsModule } from './delivery-metrics.module.js';
import { ConnectorPool } from './smpp/connector.pool.js';
import { RoutingModule } from './smpp/routing.module.js';
import { DeliveryReportService } from './receipts/delivery-report.service.js';
import { DeliveryReportStore } from './receipts/delivery-report.store.js';
import { DispatchAttempts } from './dispatch/dispatch-attempts.service.js';
import { DispatchWorker } from './dispatch/dispatch.worker.js';
import { Dispatcher } from './dispatch/dispatcher.service.js';
import { DueScanner } from './scheduling/due.scanner.js';
import { HandOverClaims } from './dispatch/hand-over-claims.service.js';
import { HandOverRecorder } from './dispatch/hand-over.recorder.js';
import { HandOversInFlight } from './receipts/hand-overs-in-flight.registry.js';
import { MessageStateModule } from './lifecycle/message-state.module.js';
import { ProviderFaults } from './dispatch/provider-faults.registry.js';
import { QueueModule } from './queue.module.js';
import { ReceiptExpiry } from './receipts/receipt-expiry.service.js';
import { RecoverySweep } from './recovery/recovery.sweep.js';
import { TransportRegistry } from './dispatch/transport.registry.js';
import { ValidityExpiry } from './recovery/validity-expiry.sweep.js';

export interface DeliveryBindings {
  /** A module exporting STATE_CHANGE_LISTENER, told of every committed state change (callbacks). */
  stateListener: Type;
  /** A module exporting INBOUND_SINK, handed the messages the transports receive (inbound). */
  inboundSink: Type;
}

/**
 * Everything after acceptance, in a process that runs workers: the dispatch processors, the
 * transports and connectors, delivery reports, and the sweeps (recovery, due schedules, validity
 * and receipt expiry). Its listeners come from the features that build on delivery.
 */
@Module({})
export class DeliveryModule {
  static forRoot(bindings: DeliveryBindings): DynamicModule {
    const state = MessageStateModule.withListener(bindings.stateListener);
    return {
      module: DeliveryModule,
      imports: [
        MessagesModule,
        QueueModule,
        MetricsModule,
        DeliveryMetricsModule,
        RoutingModule,
        RedisModule,
        SuppressionsModule,
        state,
        bindings.inboundSink,
      ],
      providers: [
        ConnectorPool,
        TransportRegistry,
        DeliveryReportService,
        DeliveryReportStore,
        Dispatcher,
        DispatchAttempts,
        ProviderFaults,
        ReceiptExpiry,
        RecoverySweep,
        DispatchWorker,
        HandOverClaims,
        HandOverRecorder,
        HandOversInFlight,
        DueScanner,
        ValidityExpiry,
      ],
      exports: [TransportRegistry, ProviderFaults, RecoverySweep, DueScanner, ValidityExpiry, state],
    };
  }
}
