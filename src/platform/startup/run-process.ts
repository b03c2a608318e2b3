import type { INestApplicationContext } from '@nestjs/common';
import { Logger } from 'nestjs-pino';
import type { Logger as Pino } from 'pino';
import type { HttpLogger } from 'pino-http';
import type { AppConfig } from '../../config/config.js';
import { loadConfigOrExit } from '../../config/load-or-exit.js';
import { HTTP_LOGGER } from '../logging/logging.module.js';
import { QuietWiringLogger, exitWhenWritten, flushSync, processLogger } from '../logging/process-logger.js';
import { startupFailure } from './startup-failure.js';

/** The app's own logger, once the app exists: flushed before the process's last line. */
export interface AppLogs {
  app?: Pino;
}

/**
 * Hands a new Nest app (the API's or a worker's) the app's logger: Nest's wiring lines are
 * quietened, the app's logger is flushed before the last line, and the shutdown hooks end the
 * process with process.exit once done, so the 'exit' handlers (pino-pretty's transport) flush
 * the last lines.
 */
export function adoptApp(app: INestApplicationContext, logs: AppLogs): void {
  app.useLogger(new QuietWiringLogger(app.get(Logger)));
  logs.app = app.get<HttpLogger>(HTTP_LOGGER).logger;
  app.enableShutdownHooks([], { useProcessExit: true });
}

/**
 * The frame of a long-running process named `name` ("bulk-messaging", "bulk-messaging worker"):
 * its configuration (a bad variable stops it with a message naming it), the process logger, a
 * last line however the process ends, and one line saying why it could not start.
 */
export function runProcess(
  name: string,
  start: (config: AppConfig, log: Pino, logs: AppLogs) => Promise<void>,
): void {
  const config = loadConfigOrExit();
  const log = processLogger(config);
  const logs: AppLogs = {};
  // The last line of every run, however it ends (the write is synchronous).
  process.once('exit', (code) => {
    flushSync(logs.app);
    log.info({ context: 'Shutdown' }, `${name} stopped (exit code ${code})`);
  });
  start(config, log, logs).catch((err: unknown) => {
    log.fatal({ context: 'Bootstrap' }, `${name} failed to start: ${startupFailure(err, config)}`);
    // The app's lines written so far may still be on their way (an asynchronous write that the
    // 'exit' handler cannot hurry); they go first, so the stop line stays the last.
    exitWhenWritten(logs.app, 1);
  });
}
