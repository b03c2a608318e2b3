import { Module, type DynamicModule, type Type } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { RedisModule } from '../../platform/redis/redis.module.js';
import { RoutingModule } from '../delivery/smpp/routing.module.js';
import { ConnectorHealth } from './connector-health.indicator.js';
import { CacheIndicator } from './cache.indicator.js';
import { CacheStatsModule } from '../metrics/cache-stats.service.js';
import {
  DatabaseIndicator,
  LogDatabaseIndicator,
  NotificationDatabaseIndicator,
  RedisIndicator,
} from './dependency.indicators.js';
import { ClientServerIndicator, ProviderProbes, SmsServerIndicator } from './external.indicators.js';
import { HealthController } from './health.controller.js';
import { HealthService } from './health.service.js';
import { HttpDrain } from './http-drain.service.js';
import { LifecycleState } from './lifecycle.state.js';
import { MessageQueueIndicator } from './message-queue.indicator.js';
import { ProcessStatsModule } from '../metrics/process-stats.module.js';
import { ProviderFaults } from '../delivery/dispatch/provider-faults.registry.js';
import { TransportRegistry } from '../delivery/dispatch/transport.registry.js';
import { AllQueuesModule } from './every-queue.module.js';
import { IN_PROCESS_DISPATCH, type InProcessDispatch } from './health.tokens.js';

/** Health probes, the lifecycle they report, and the HTTP drain on shutdown. */
@Module({
  imports: [
    TerminusModule.forRoot({ logger: false }),
    CacheStatsModule,
    RedisModule,
    RoutingModule,
    AllQueuesModule,
    ProcessStatsModule,
  ],
  controllers: [HealthController],
  providers: [
    HealthService,
    DatabaseIndicator,
    LogDatabaseIndicator,
    NotificationDatabaseIndicator,
    RedisIndicator,
    CacheIndicator,
    MessageQueueIndicator,
    ProviderProbes,
    ConnectorHealth,
    SmsServerIndicator,
    ClientServerIndicator,
    LifecycleState,
    HttpDrain,
  ],
  exports: [LifecycleState, HttpDrain, CacheStatsModule],
})
export class HealthModule {
  /**
   * `workers` exports the transports and provider faults of the dispatch workers this process
   * runs (the providers are asked through them), or is null in an API that runs none.
   */
  static forRoot(options: { workers: DynamicModule | Type | null }): DynamicModule {
    const { workers } = options;
    return {
      module: HealthModule,
      imports: workers ? [workers] : [],
      providers: [
        workers
          ? {
              provide: IN_PROCESS_DISPATCH,
              inject: [TransportRegistry, ProviderFaults],
              useFactory: (registry: TransportRegistry, faults: ProviderFaults): InProcessDispatch => ({
                registry,
                faults,
              }),
            }
          : { provide: IN_PROCESS_DISPATCH, useValue: null },
      ],
    };
  }
}
