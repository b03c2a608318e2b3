import { Global, Module } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import type { DestinationStream } from 'pino';
import { pinoHttp, type HttpLogger } from 'pino-http';
import PinoPretty from 'pino-pretty';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { accessLog } from './access-log.js';
import { PRETTY_OPTIONS, httpLoggerOptions } from './log-options.js';

/**
 * Where log lines go: null = stdout (or pino-pretty in development). Tests replace it with a
 * stream of their own (`overrideProvider(LOG_DESTINATION)`) to read the lines back.
 */
export const LOG_DESTINATION = Symbol('LOG_DESTINATION');
/** The pino-http middleware of this app; its `.logger` is the root pino logger. */
export const HTTP_LOGGER = Symbol('HTTP_LOGGER');

@Module({
  providers: [
    { provide: LOG_DESTINATION, useValue: null },
    {
      provide: HTTP_LOGGER,
      inject: [APP_CONFIG, LOG_DESTINATION],
      useFactory: (config: AppConfig, injected: DestinationStream | null): HttpLogger => {
        // A developer's terminal gets pino-pretty in this thread, synchronously, so lines keep
        // their order with the process's own start and stop lines (process-logger.ts).
        const destination =
          injected ?? (config.logPretty ? PinoPretty({ ...PRETTY_OPTIONS, sync: true }) : null);
        // pino-http builds the logger (its serializers, redaction, destination); accessLog is
        // the middleware, writing the same access lines.
        const http = destination
          ? pinoHttp(httpLoggerOptions(config, destination), destination)
          : pinoHttp(httpLoggerOptions(config));
        return accessLog(http, httpLoggerOptions(config, destination ?? undefined));
      },
    },
  ],
  exports: [LOG_DESTINATION, HTTP_LOGGER],
})
class HttpLoggerModule {}

/**
 * Structured JSON logs through pino, for Nest's own logger too (api.ts and worker.ts call
 * app.useLogger(app.get(Logger))). The pino-http middleware is mounted by configureApp right
 * after the request id (so body-parser errors and the shutdown 503 are logged too), and binds
 * the request's logger to nestjs-pino's async context, so a `new Logger(…).log()` inside a
 * request carries its request_id; nestjs-pino mounts no middleware (`forRoutes: []`).
 */
@Global()
@Module({
  imports: [
    HttpLoggerModule,
    LoggerModule.forRootAsync({
      imports: [HttpLoggerModule],
      providers: [],
      inject: [HTTP_LOGGER],
      // No middleware of its own (no routes): the access log binds each request's logger to
      // the async context itself (access-log.ts), one Express layer fewer per request.
      useFactory: (http: HttpLogger) => ({
        pinoHttp: { logger: http.logger },
        useExisting: true,
        forRoutes: [],
      }),
    }),
  ],
  exports: [HttpLoggerModule, LoggerModule],
})
export class LoggingModule {}
