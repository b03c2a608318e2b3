import { Module, type DynamicModule } from '@nestjs/common';
import { LoggingModule } from '../platform/logging/logging.module.js';
import { RedisModule } from '../platform/redis/redis.module.js';
import type { AppConfig } from '../config/config.js';
import { ConfigModule } from '../config/config.module.js';
import { DatabaseModule } from '../database/database.module.js';
import { MAIN_ENTITIES } from './entities.js';
import { QueueModule } from '../modules/delivery/queue.module.js';
import { MetricsModule } from '../modules/metrics/metrics.module.js';
import { MetricsServerModule } from '../modules/metrics/metrics-server.module.js';
import { WorkerModule } from './worker.module.js';

/** Dispatch workers only: no HTTP API (a /metrics listener only when METRICS_PORT is set). */
@Module({})
export class WorkerAppModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: WorkerAppModule,
      imports: [
        ConfigModule.forRoot(config),
        LoggingModule,
        MetricsModule,
        DatabaseModule.forRoot(MAIN_ENTITIES),
        RedisModule,
        QueueModule,
        WorkerModule,
        MetricsServerModule,
      ],
    };
  }
}
