import 'reflect-metadata';
import { Module, Logger as NestLogger, type DynamicModule } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Logger } from 'nestjs-pino';
import { LoggingModule } from './common/logging/logging.module.js';
import { forceExitAfterGrace } from './common/logging/shutdown-timer.js';
import { RedisModule } from './common/redis/redis.module.js';
import type { AppConfig } from './config/config.js';
import { ConfigModule } from './config/config.module.js';
import { loadConfigOrExit } from './config/load-or-exit.js';
import { DatabaseModule } from './database/database.module.js';
import { QueueModule } from './modules/dispatch/queue.module.js';
import { ProcessStats } from './modules/health/process-stats.js';
import { MetricsModule } from './modules/metrics/metrics.module.js';
import { WorkerMetricsServer } from './modules/metrics/worker-metrics.server.js';
import { WorkerModule } from './worker.module.js';

@Module({})
class WorkerAppModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: WorkerAppModule,
      imports: [ConfigModule.forRoot(config), LoggingModule, MetricsModule, DatabaseModule, RedisModule, QueueModule, WorkerModule],
      providers: [WorkerMetricsServer, ProcessStats],
    };
  }
}

/** Dispatch workers only: no HTTP API (a /metrics listener only when METRICS_PORT is set). */
async function bootstrap(): Promise<void> {
  const config = loadConfigOrExit();
  const app = await NestFactory.createApplicationContext(WorkerAppModule.forRoot(config), { bufferLogs: true, abortOnError: false });
  app.useLogger(app.get(Logger));
  app.enableShutdownHooks([], { useProcessExit: true });
  const logger = new NestLogger('Shutdown');
  // DispatchWorker.beforeApplicationShutdown stops taking jobs and waits for the ones in hand.
  forceExitAfterGrace(config.shutdownGraceMs, (signal) =>
    logger.log(`${signal} received: finishing the jobs in hand (grace ${config.shutdownGraceMs} ms)`),
  );
  new NestLogger('Bootstrap').log(`bulk-messaging worker started (env ${config.env})`);
}

bootstrap().catch((err: unknown) => {
  NestLogger.flush();
  console.error('bulk-messaging worker failed to start:', err instanceof Error ? err.message : err);
  process.exit(1);
});
