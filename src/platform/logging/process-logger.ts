import type { LoggerService } from '@nestjs/common';
import { pino, type Logger as Pino } from 'pino';
import PinoPretty from 'pino-pretty';
import type { AppConfig } from '../../config/config.js';
import { PRETTY_OPTIONS, loggerOptions } from './log-options.js';

/**
 * Nest's start-up wiring: a line per module, controller and route, and "successfully
 * started" before the port is even bound. Useful when debugging the wiring, noise otherwise:
 * demoted to debug. The process says it is listening itself, once it is.
 */
const WIRING = new Set([
  'InstanceLoader',
  'RoutesResolver',
  'RouterExplorer',
  'NestFactory',
  'NestApplication',
  'NestApplicationContext',
]);

type Level = 'verbose' | 'debug' | 'log' | 'warn' | 'error' | 'fatal';

function contextOf(params: unknown[]): string | undefined {
  const last = params.at(-1);
  return typeof last === 'string' ? last : undefined;
}

/** Wraps a Nest logger so that wiring lines go out at debug. */
export class QuietWiringLogger implements LoggerService {
  constructor(private readonly inner: LoggerService) {}

  private call(level: Level, message: unknown, params: unknown[]): void {
    const context = contextOf(params) ?? '';
    // Nest's ExceptionHandler prints a start-up failure with its stack; the entry point
    // writes one fatal line for it instead, so the stack goes out at debug only.
    // Likewise Nest's own line for a failed listen (the fatal line names PORT).
    const quiet =
      (level === 'log' && WIRING.has(context)) ||
      (level === 'error' && context === 'ExceptionHandler') ||
      (level === 'error' && context === 'NestApplication' && /listen E[A-Z]+/.test(String(message)));
    const effective = quiet ? 'debug' : level;
    const fn = this.inner[effective]?.bind(this.inner) ?? this.inner.log.bind(this.inner);
    fn(message, ...params);
  }

  log(message: unknown, ...params: unknown[]): void {
    this.call('log', message, params);
  }
  warn(message: unknown, ...params: unknown[]): void {
    this.call('warn', message, params);
  }
  error(message: unknown, ...params: unknown[]): void {
    this.call('error', message, params);
  }
  debug(message: unknown, ...params: unknown[]): void {
    this.call('debug', message, params);
  }
  verbose(message: unknown, ...params: unknown[]): void {
    this.call('verbose', message, params);
  }
  fatal(message: unknown, ...params: unknown[]): void {
    this.call('fatal', message, params);
  }
}

/**
 * A synchronous pino logger for the process's own life: start-up (before the app's logger
 * exists), a fatal start-up failure and the last line at exit. Synchronous, so a line written
 * just before process.exit is never lost. Same format as every other line.
 */
export function processLogger(config: AppConfig): Pino {
  const destination = config.logPretty
    ? PinoPretty({ ...PRETTY_OPTIONS, sync: true })
    : pino.destination({ dest: 1, sync: true });
  return pino(loggerOptions(config, destination), destination);
}

type Stream = {
  flushSync?: () => void;
  /** sonic-boom's: false when it writes asynchronously. */
  sync?: boolean;
  write?: (chunk: string) => unknown;
  once?: (event: string, listener: () => void) => unknown;
};

function streamOf(logger: Pino | undefined): Stream | undefined {
  return (logger as unknown as Record<symbol, Stream | undefined> | undefined)?.[pino.symbols.streamSym];
}

/**
 * Exits once the logger's asynchronous stream has written everything it was given. A write
 * still in flight at exit would land after the process's last line, or be lost with the
 * process; pino's `flush(cb)` does not wait for it (with the default stream it calls back at
 * once). An empty write makes the stream (sonic-boom) emit `drain` when all before it is
 * written, whether or not a write was in flight; the exit happens in that event's handler, so
 * no other line can start a write in between. `waitMs` bounds the wait (a stream that never
 * drains, a reader that stopped reading). A synchronous stream (pino-pretty in development)
 * has nothing in flight: the exit is immediate.
 */
export function exitWhenWritten(logger: Pino | undefined, code: number, waitMs = 5000): void {
  const stream = streamOf(logger);
  const exit = (): never => process.exit(code);
  // Only an asynchronous sonic-boom (pino's own stream) can have a write in flight.
  if (!stream?.once || !stream.write || !stream.flushSync || stream.sync !== false) exit();
  setTimeout(exit, waitMs);
  stream!.once!('drain', exit);
  stream!.write!('');
}

/**
 * Writes out what a pino logger still holds (its stream is asynchronous in production), so a
 * line written after it at exit really is the last one.
 */
export function flushSync(logger: Pino | undefined): void {
  const stream = streamOf(logger);
  try {
    stream?.flushSync?.();
  } catch {
    // Nothing buffered, or the stream is already closed: nothing to flush.
  }
}

const PINO_LEVEL = {
  verbose: 'trace',
  debug: 'debug',
  log: 'info',
  warn: 'warn',
  error: 'error',
  fatal: 'fatal',
} as const;

/** Nest's LoggerService over a pino logger, for the start-up phase. */
export function nestLoggerOver(log: Pino): LoggerService {
  const at =
    (level: Level) =>
    (message: unknown, ...params: unknown[]) => {
      const context = contextOf(params);
      const text =
        message instanceof Error
          ? message.message
          : typeof message === 'string'
            ? message
            : JSON.stringify(message);
      log[PINO_LEVEL[level]](context ? { context } : {}, text);
    };
  return new QuietWiringLogger({
    log: at('log'),
    warn: at('warn'),
    error: at('error'),
    debug: at('debug'),
    verbose: at('verbose'),
    fatal: at('fatal'),
  });
}
