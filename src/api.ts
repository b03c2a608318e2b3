/**
 * The API process: loaded by main.ts once V8's garbage-collection settings hold
 * (platform/startup/gc-settings.ts).
 */
import 'reflect-metadata';
import { Logger as NestLogger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Logger } from 'nestjs-pino';
import type { Logger as Pino } from 'pino';
import type { HttpLogger } from 'pino-http';
import { AppModule } from './app/app.module.js';
import { configureApp } from './app/configure-app.js';
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
import { HttpDrain } from './modules/health/http-drain.js';
import { ShapedExpressAdapter } from './platform/http/message-shape.js';

/** The app's own logger, once it exists: flushed before the last line. */
let appLog: Pino | undefined;

async function bootstrap(config: AppConfig, log: Pino): Promise<void> {
  const app = await NestFactory.create<NestExpressApplication>(
    AppModule.forRoot(config),
    new ShapedExpressAdapter(),
    {
      bodyParser: false,
      // Not buffered: a start-up that waits for MySQL says so while it waits.
      logger: nestLoggerOver(log),
      abortOnError: false,
    },
  );
  app.useLogger(new QuietWiringLogger(app.get(Logger)));
  appLog = app.get<HttpLogger>(HTTP_LOGGER).logger;
  // Before configureApp, whose own call is then a no-op: exit with process.exit once the
  // hooks are done, so the 'exit' handlers (pino-pretty's transport) flush the last lines.
  app.enableShutdownHooks([], { useProcessExit: true });
  configureApp(app, config);

  const drain = app.get(HttpDrain);
  const logger = new NestLogger('Shutdown');
  // Runs right after Nest's own signal listener has started the shutdown, before any hook:
  // readiness turns 503 and the listener closes at once; the hooks then wait for requests in
  // flight (HttpDrain), let workers finish their jobs (DispatchWorker) and close connections.
  forceExitAfterGrace(config.shutdownGraceMs, (signal) => {
    logger.log(
      `${signal} received: draining HTTP, then stopping workers (grace ${config.shutdownGraceMs} ms)`,
    );
    drain.begin();
  });

  await app.listen(config.port);
  log.info(
    { context: 'Bootstrap' },
    `bulk-messaging listening on :${config.port} (env ${config.env}, workers ${config.runWorkers ? 'on' : 'off'})`,
  );
}

const config = loadConfigOrExit();
const log = processLogger(config);
// The last line of every run, however it ends (the write is synchronous).
process.once('exit', (code) => {
  flushSync(appLog);
  log.info({ context: 'Shutdown' }, `bulk-messaging stopped (exit code ${code})`);
});

bootstrap(config, log).catch((err: unknown) => {
  log.fatal({ context: 'Bootstrap' }, `bulk-messaging failed to start: ${startupFailure(err, config)}`);
  // The app's lines written so far may still be on their way (an asynchronous write that the
  // 'exit' handler cannot hurry); they go first, so the stop line stays the last.
  exitWhenWritten(appLog, 1);
});
