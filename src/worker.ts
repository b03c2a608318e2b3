import 'reflect-metadata';
import { Module, type DynamicModule } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { RedisModule } from './common/redis/redis.module.js';
import type { AppConfig } from './config/config.js';
import { ConfigModule } from './config/config.module.js';
import { loadConfigOrExit } from './config/load-or-exit.js';
import { DatabaseModule } from './database/database.module.js';
import { QueueModule } from './modules/dispatch/queue.module.js';
import { WorkerModule } from './worker.module.js';

@Module({})
class WorkerAppModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: WorkerAppModule,
      imports: [ConfigModule.forRoot(config), DatabaseModule, RedisModule, QueueModule, WorkerModule],
    };
  }
}

/** Dispatch workers only: no HTTP listener. */
async function bootstrap(): Promise<void> {
  const config = loadConfigOrExit();
  const app = await NestFactory.createApplicationContext(WorkerAppModule.forRoot(config));
  app.enableShutdownHooks();
  console.log(`bulk-messaging worker started (env ${config.env})`);
}

bootstrap().catch((err: unknown) => {
  console.error('bulk-messaging worker failed to start:', err instanceof Error ? err.message : err);
  process.exit(1);
});
