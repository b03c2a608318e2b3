import { Module, type DynamicModule, type Type } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { RedisModule } from '../../platform/redis/redis.module.js';
import { RoutingModule } from '../delivery/connectors/routing.module.js';
import { ConnectorHealth } from './connector-health.js';
import { CacheIndicator } from './cache.indicator.js';
import { CacheStatsModule } from '../metrics/cache-stats.js';
import {
  DatabaseIndicator,
  LogDatabaseIndicator,
  NotificationDatabaseIndicator,
  RedisIndicator,
} from './dependency.indicators.js';
import { ClientServerIndicator, ProviderProbes, SmsServerIndicator } from './external.indicators.js';
import { HealthController } from './health.controller.js';
import { HealthService } from './health.service.js';
import { HttpDrain } from './http-drain.js';
import { LifecycleState } from './lifecycle.state.js';
import { MessageQueueIndicator } from './message-queue.indicator.js';
import { ProcessStats } from '../metrics/process-stats.js';

/** Health probes, the lifecycle they report, and the HTTP drain on shutdown. */
@Module({
  imports: [TerminusModule.forRoot({ logger: false }), CacheStatsModule, RedisModule, RoutingModule],
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
    ProcessStats,
    LifecycleState,
    HttpDrain,
  ],
  exports: [LifecycleState, HttpDrain, CacheStatsModule],
})
export class HealthModule {
  /**
   * `queues` exports EVERY_QUEUE; `dispatch` exports IN_PROCESS_DISPATCH: the transports the
   * workers of this process use (the providers are asked through them), or null.
   */
  static forRoot(options: { queues: Type; dispatch: Type }): DynamicModule {
    return { module: HealthModule, imports: [options.queues, options.dispatch] };
  }
}
