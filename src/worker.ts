import 'reflect-metadata';
import { Logger as NestLogger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { nestLoggerOver } from './platform/logging/process-logger.js';
import { forceExitAfterGrace } from './platform/logging/shutdown-timer.js';
import { adoptApp, runProcess } from './platform/startup/run-process.js';
import { WorkerAppModule } from './app/worker-app.module.js';

runProcess('bulk-messaging worker', async (config, log, logs) => {
  // Not buffered: a start-up that waits for MySQL says so while it waits.
  const app = await NestFactory.createApplicationContext(WorkerAppModule.forRoot(config), {
    logger: nestLoggerOver(log),
    abortOnError: false,
  });
  adoptApp(app, logs);
  const logger = new NestLogger('Shutdown');
  // DispatchWorker.beforeApplicationShutdown stops taking jobs and waits for the ones in hand.
  forceExitAfterGrace(config.shutdownGraceMs, (signal) =>
    logger.log(`${signal} received: finishing the jobs in hand (grace ${config.shutdownGraceMs} ms)`),
  );
  log.info({ context: 'Bootstrap' }, `bulk-messaging worker started (env ${config.env})`);
});
