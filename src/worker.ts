import 'reflect-metadata';
import { Logger as NestLogger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Logger } from 'nestjs-pino';
import type { Logger as Pino } from 'pino';
import type { HttpLogger } from 'pino-http';
import { HTTP_LOGGER } from './platform/logging/logging.module.js';
import {
  QuietWiringLogger,
  exitWhenWritten,
  flushSync,
  nestLoggerOver,
  processLogger,
} from './platform/logging/process-logger.js';
import { forceExitAfterGrace } from './platform/logging/shutdown-timer.js';
import { startupFailure } from './platform/startup/startup-failure.js';
import type { AppConfig } from './config/config.js';
import { loadConfigOrExit } from './config/load-or-exit.js';
import { WorkerAppModule } from './app/worker-app.module.js';

/** The app's own logger, once it exists: flushed before the last line. */
let appLog: Pino | undefined;

async function bootstrap(config: AppConfig, log: Pino): Promise<void> {
  // Not buffered: a start-up that waits for MySQL says so while it waits.
  const app = await NestFactory.createApplicationContext(WorkerAppModule.forRoot(config), {
    logger: nestLoggerOver(log),
    abortOnError: false,
  });
  app.useLogger(new QuietWiringLogger(app.get(Logger)));
  appLog = app.get<HttpLogger>(HTTP_LOGGER).logger;
  app.enableShutdownHooks([], { useProcessExit: true });
  const logger = new NestLogger('Shutdown');
  // DispatchWorker.beforeApplicationShutdown stops taking jobs and waits for the ones in hand.
  forceExitAfterGrace(config.shutdownGraceMs, (signal) =>
    logger.log(`${signal} received: finishing the jobs in hand (grace ${config.shutdownGraceMs} ms)`),
  );
  log.info({ context: 'Bootstrap' }, `bulk-messaging worker started (env ${config.env})`);
}

const config = loadConfigOrExit();
const log = processLogger(config);
// The last line of every run, however it ends (the write is synchronous).
process.once('exit', (code) => {
  flushSync(appLog);
  log.info({ context: 'Shutdown' }, `bulk-messaging worker stopped (exit code ${code})`);
});

bootstrap(config, log).catch((err: unknown) => {
  log.fatal(
    { context: 'Bootstrap' },
    `bulk-messaging worker failed to start: ${startupFailure(err, config)}`,
  );
  exitWhenWritten(appLog, 1);
});
