import { Module, type DynamicModule } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { RedisModule } from '../../platform/redis/redis.module.js';
import { QueueModule } from '../delivery/queue.module.js';
import { CacheIndicator } from './cache.indicator.js';
import { CacheStatsModule } from './cache-stats.js';
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
import { NoWorkersInProcessModule, WorkersInProcessModule } from './in-process-dispatch.module.js';
import { LifecycleState } from './lifecycle.state.js';
import { MessageQueueIndicator } from './message-queue.indicator.js';
import { ProcessStats } from './process-stats.js';

/** Health probes, the lifecycle they report, and the HTTP drain on shutdown. */
@Module({
  imports: [TerminusModule.forRoot({ logger: false }), CacheStatsModule, RedisModule, QueueModule],
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
    SmsServerIndicator,
    ClientServerIndicator,
    ProcessStats,
    LifecycleState,
    HttpDrain,
  ],
  exports: [LifecycleState, HttpDrain, CacheStatsModule],
})
export class HealthModule {
  /** With `runWorkers`, the providers are asked through the transports the workers of this process use. */
  static forRoot(options: { runWorkers: boolean }): DynamicModule {
    return {
      module: HealthModule,
      imports: [options.runWorkers ? WorkersInProcessModule : NoWorkersInProcessModule],
    };
  }
}
